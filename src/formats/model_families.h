// Per-family GGUF reading for load_gguf_llama (model_weights.cpp): the keys and tensors that distinguish
// gemma2, gemma3, phi3 and smollm3 (no RoPE on every 4th layer) from llama/qwen, and the RoPE scaling keys of every family, read as llama.cpp 80fb11a
// reads them (src/llama-model.cpp load_hparams, src/models/{gemma2,gemma3,phi3}.cpp, src/llama-context.cpp).
// Internal to wgrt_formats. Not thread-affine.
#pragma once
#include <string>

#include "formats/model_weights.h"

namespace wgrt {

// The architectures load_gguf_llama accepts.
bool llama_family_supported(const std::string& arch);

// Fills c.rope_scaling (except the factor tensors) and the gemma fields of c from {arch}.* keys; c.arch,
// c.n_layers, c.dim, c.n_heads, c.rope_theta and c.context_length must be set. FormatError (prefixed by ctx) for
// an unknown rope.scaling.type, a non-finite or non-positive factor / softcap, a sliding_window outside
// 1..2^24 or a sliding_window_pattern of 0.
void read_family_config(const GgufFile& g, LlamaConfig& c, const std::string& ctx);

// After every tensor is added: moves the RoPE factor tensors (rope_freqs, rope_factors_long, rope_factors_short;
// F32 [head_dim/2], finite and > 0) into cfg.rope_scaling, splits fused tensors (blk.i.attn_qkv; phi3's
// blk.i.ffn_up of 2*hidden rows without ffn_gate) into row ranges under the canonical names, and sets
// has_qkv_bias / has_qk_norm / post_norms from the tensors present. FormatError naming the tensor otherwise.
void read_family_tensors(WeightSource& ws, const std::string& ctx);

}  // namespace wgrt
