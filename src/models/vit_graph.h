// Builds the wgrt graph of a ViT-style image encoder (pre-LN transformer, timm VisionTransformer layout) from
// a config and caller-supplied f32 weights.
//
// Forward (B images [B, C, S, S] f32 -> features [B, T, W] f32 after the final LayerNorm):
//   patch conv (kernel = stride = patch, aten.convolution) -> [B, W, g, g] -> view [B, W, g*g] ->
//   permute [B, g*g, W] -> (class token: cat([cls], patches) along tokens) -> + pos_embed ->
//   depth x { x += proj(MHSA(LN1(x))); x += fc2(GELU(fc1(LN2(x)))) } -> LN.
// MHSA: q/k/v linears (rows of qkv.weight split on the host) -> view [B,T,H,hd] -> permute [B,H,T,hd] ->
// et_vk.sdpa (non-causal, scale 1/sqrt(hd)) -> permute -> view [B,T,W] -> proj linear. GELU is erf ("none")
// or tanh, LayerNorm eps from the config.
// Batch B is fixed at build (the class-token rows are replicated B times on the host).
// Follows: Dosovitskiy et al., "An Image is Worth 16x16 Words" (ViT) and timm's vision_transformer.py naming;
// SigLIP So400m/14 shapes from Zhai et al. (SigLIP) / Alabdulmohsin et al. (shape-optimized ViT).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace wgrt::models {

struct VitConfig {
  int64_t image_size = 224, patch = 16, channels = 3;
  int64_t width = 768, depth = 12, heads = 12, mlp_dim = 3072;
  bool class_token = true;
  double ln_eps = 1e-6;
  std::string gelu = "none";  // "none" (erf) or "tanh"

  // Patches per side: floor(image_size / patch), as the stride = kernel patch conv drops the remainder
  // (SigLIP So400m/14 at 384: 27 x 27 patches from 378 of the 384 pixels, like HF's padding="valid" conv).
  int64_t grid() const { return image_size / patch; }
  int64_t tokens() const { return grid() * grid() + (class_token ? 1 : 0); }
  // Throws InvalidArgument naming the field (non-positive sizes, image smaller than patch, width not a
  // multiple of heads, unknown gelu).
  void validate() const;

  static VitConfig vit_b16();        // ViT-B/16 at 224x224: width 768, depth 12, 12 heads, MLP 3072, class token
  static VitConfig siglip_so400m();  // patch 14, width 1152, 27 layers, 16 heads, MLP 4304, image 384 (729 tokens),
                                     // no class token, tanh GELU
};

// Weight names -> row-major f32 data. Names and shapes (timm):
//   patch_embed.proj.weight [W, C, p, p], patch_embed.proj.bias [W], cls_token [1, 1, W] (class token only),
//   pos_embed [1, T, W], blocks.{i}.norm1.{weight,bias} [W], blocks.{i}.attn.qkv.weight [3W, W] (rows q, k, v),
//   blocks.{i}.attn.qkv.bias [3W], blocks.{i}.attn.proj.weight [W, W], .bias [W], blocks.{i}.norm2.{weight,bias},
//   blocks.{i}.mlp.fc1.weight [M, W], .bias [M], blocks.{i}.mlp.fc2.weight [W, M], .bias [W], norm.{weight,bias}.
using VitWeights = std::map<std::string, std::vector<float>>;

// Every weight's name and shape, in the order above.
std::vector<std::pair<std::string, Dims>> vit_weight_shapes(const VitConfig& c);

// Seeded random weights (uniform; LayerNorm weights near 1) for benchmarks and smoke runs.
VitWeights vit_random_weights(const VitConfig& c, uint32_t seed);

struct VitGraph {
  Graph graph;
  ValueId pixels = -1;    // input f32 [B, C, S, S]
  ValueId features = -1;  // output f32 [B, T, W]
  int64_t batch = 1;
};

// Throws InvalidArgument for a bad config, a missing weight or a weight of the wrong size (naming it).
VitGraph build_vit_graph(const VitConfig& c, const VitWeights& w, int64_t batch = 1);

}  // namespace wgrt::models
