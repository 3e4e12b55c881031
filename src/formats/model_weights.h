// Format-neutral view of a Llama-family model (llama, qwen2, qwen3): hyper-parameters and weights by
// canonical name, whatever file they came from (GGUF or llama2.c checkpoint).
//
// Canonical tensor names and logical shapes (matrices are PyTorch nn.Linear layout [out N, in K], row-major,
// K contiguous; q_dim = n_heads*head_dim, kv_dim = n_kv_heads*head_dim):
//   tok_embd [vocab, dim]        output_norm [dim]         output [vocab, dim] (absent if tied_embeddings)
//   blk.{i}.attn_norm [dim]      blk.{i}.attn_q [q_dim, dim]      blk.{i}.attn_k [kv_dim, dim]
//   blk.{i}.attn_v [kv_dim, dim] blk.{i}.attn_output [dim, q_dim] blk.{i}.ffn_norm [dim]
//   blk.{i}.ffn_gate [hidden, dim]  blk.{i}.ffn_up [hidden, dim]  blk.{i}.ffn_down [dim, hidden]
//   if has_qkv_bias: blk.{i}.attn_q.bias [q_dim], attn_k.bias [kv_dim], attn_v.bias [kv_dim]
//   if has_qk_norm:  blk.{i}.attn_q_norm [head_dim], blk.{i}.attn_k_norm [head_dim]
//   if post_norms:   blk.{i}.post_attention_norm [dim], blk.{i}.post_ffw_norm [dim]
// Fused tensors are split into the canonical ones at load, as row ranges of the stored bytes (no copy):
//   blk.{i}.attn_qkv [q_dim + 2 kv_dim, dim] -> attn_q, attn_k, attn_v (any architecture; phi3 writes it);
//   phi3's blk.{i}.ffn_up [2 hidden, dim] (gate rows first) -> ffn_gate, ffn_up.
// Gemma's RMSNorm weights are used as stored: llama.cpp's converter already writes (1 + w).
// GGUF names map as: strip ".weight", "token_embd" -> "tok_embd"; other GGUF tensors keep their (stripped)
// names. GGUF stores ne0 = K first, so shape = reversed dims; llama2.c matrices are already [out, in].
// q/k rows are used exactly as stored: llama.cpp's converters write llama-arch q/k in the same (interleaved-
// RoPE) row order as llama2.c (checked on stories260K by tests/host/gguf_vs_llama2c_test.cpp).
//
// RoPE: rope_interleaved = true rotates adjacent pairs (x[2i], x[2i+1]) (llama2.c, llama.cpp
// LLAMA_ROPE_TYPE_NORM; GGUF arch llama); false rotates halves (x[i], x[i+head_dim/2]) (NEOX; qwen2, qwen3).
// Frequency of pair i: rope_theta^(-2i/head_dim).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "formats/ggml_quant.h"
#include "formats/ggml_type.h"

namespace wgrt {

class GgufFile;
class Llama2cFile;

// RoPE frequency scaling, as llama.cpp reads it from GGUF ({arch}.rope.scaling.* and the factor tensors) and
// applies it (ggml rope_yarn / ggml_rope_cache_init). Pair i of a head rotates by pos * w_i with
//   e_i = base^(-2i/head_dim) / ff_i          (ff_i: freq_factors[i], 1 without them)
//   w_i = e_i / factor                        (type Linear or LongRope; None: w_i = e_i)
//   w_i = e_i / factor * (1 - r_i) + e_i * r_i  (type Yarn; r_i = llama.cpp's ramp over the correction dims
//                                              from orig_context, base, beta_fast 32, beta_slow 1)
// and cos/sin are multiplied by mscale = attn_factor * (Yarn and factor > 1 ? 1 + 0.1 ln(factor) : 1).
// src/models/rope_scaling.h computes the tables. Sliding-window layers (gemma) use factor 1 and base rope_theta_swa.
struct RopeScaling {
  enum class Type { None, Linear, Yarn, LongRope };
  Type type = Type::Linear;       // rope.scaling.type ("none", "linear", "yarn", "longrope"; llama.cpp's default linear)
  float factor = 1.0f;            // rope.scaling.factor (or the older rope.scale_linear); absent or 0 -> 1
  int orig_context = 0;           // rope.scaling.original_context_length; default context_length
  float attn_factor = 1.0f;       // rope.scaling.attn_factor
  std::vector<float> freq_factors;                // rope_freqs (Llama 3), head_dim/2 values > 0
  std::vector<float> long_factors, short_factors;  // rope_factors_long/short (Phi-3 LongRoPE): long when the
                                                   // context used exceeds orig_context, as llama.cpp chooses
};

struct LlamaConfig {
  std::string arch;  // "llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3", "smollm3", "ernie4_5" (the
                     // dense ERNIE 4.5: llama's layers)
  int dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0;
  int vocab_size = 0, context_length = 0;
  float rope_theta = 10000.0f;
  bool rope_interleaved = true;
  float rms_eps = 1e-5f;
  bool tied_embeddings = true;
  bool has_qkv_bias = false;
  bool has_qk_norm = false;
  RopeScaling rope_scaling;
  // Gemma 2 / Gemma 3 (llama.cpp src/models/gemma2.cpp, gemma3.cpp); neutral values for the other families.
  float embd_scale = 0.0f;      // token embeddings are multiplied by it (gemma: sqrt(dim)); 0: not scaled
  bool gelu_ffn = false;        // GeGLU FFN: gelu_tanh(gate) * up (gemma); false: SwiGLU
  bool post_norms = false;      // rms_norm of the attention output (post_attention_norm) and of the FFN output
                                // (post_ffw_norm) before their residual adds (gemma)
  float attn_scale = 0.0f;      // query scale; 0: 1/sqrt(head_dim) (gemma 27B shapes: 1/sqrt(dim/n_heads))
  float attn_softcap = 0.0f;    // scores -> c*tanh(scores/c) before the softmax (gemma2); 0: none
  float final_softcap = 0.0f;   // logits -> c*tanh(logits/c) (gemma2; gemma3 when the file says so); 0: none
  int sliding_window = 0;       // a sliding-window (SWA) layer's query sees its last `sliding_window` keys,
                                // itself included (llama.cpp LLAMA_SWA_TYPE_STANDARD)
  std::vector<bool> swa_layers; // per layer: true = sliding-window layer; empty: none. llama.cpp's rule:
                                // layer il is SWA iff il % pattern < pattern - 1 (gemma2 pattern 2, gemma3 6)
  float rope_theta_swa = 10000.0f;  // RoPE base of SWA layers (rope.freq_base_swa; gemma2: rope_theta)
  bool is_swa(int layer) const { return size_t(layer) < swa_layers.size() && swa_layers[size_t(layer)]; }
  std::vector<bool> nope_layers;  // per layer: true = no RoPE on q and k (smollm3: every 4th layer, llama.cpp
                                  // n_no_rope_layer_step); empty: RoPE everywhere
  bool has_rope(int layer) const { return size_t(layer) >= nope_layers.size() || !nope_layers[size_t(layer)]; }
};

// One stored tensor. `data` points into the file mapping owned by the WeightSource: valid while it lives.
struct WeightTensor {
  std::string name;
  std::vector<int64_t> shape;  // [N, K] for matrices, [n] for vectors
  GgmlType type = GgmlType::F32;
  std::span<const uint8_t> data;
  uint64_t n_elements = 0;

  int64_t rows() const { return shape.size() == 2 ? shape[0] : 1; }
  int64_t cols() const { return shape.back(); }
  std::vector<float> to_f32() const;  // dequantize(): Unsupported for types ggml_type_decodable() rejects
  Q4gsw q4gsw() const;                // Unsupported unless type == Q4_0
};

class WeightSource {
 public:
  const LlamaConfig& config() const { return cfg_; }
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const WeightTensor* find(const std::string& name) const;
  const WeightTensor& get(const std::string& name) const;  // InvalidArgument naming the tensor if absent
  std::vector<std::string> names() const;
  const GgufFile* gguf() const { return gguf_.get(); }        // null unless loaded from GGUF
  const Llama2cFile* llama2c() const { return l2c_.get(); }   // null unless loaded from llama2.c
  // What keeps every WeightTensor::data span alive (the GGUF or llama2.c file's mapping or bytes): a graph
  // constant that views tensor data holds it, so the view outlives this WeightSource.
  std::shared_ptr<const void> keepalive() const {
    return gguf_ ? std::shared_ptr<const void>(gguf_) : std::shared_ptr<const void>(l2c_);
  }

  // GGUF: general.architecture in {llama, qwen2, qwen3, gemma2, gemma3, phi3, smollm3, ernie4_5} (Unsupported otherwise,
  // naming it); family keys as llama.cpp reads them (model_families.cpp); keys
  // {arch}.embedding_length, .feed_forward_length, .block_count, .attention.head_count,
  // .attention.head_count_kv, .context_length, .attention.layer_norm_rms_epsilon (required),
  // .attention.key_length (default dim/n_heads), .rope.freq_base (default 10000). Unsupported if
  // .rope.dimension_count != head_dim (partial rotary). FormatError for missing/mis-shaped tensors.
  friend WeightSource load_gguf_llama(GgufFile file);
  // Every tensor of the file must be one of the canonical tensors above for the configuration read (so a
  // block_count smaller than the blocks present is an error naming the first extra tensor), or a RoPE factor
  // tensor (rope_freqs, rope_factors_long/short: F32 [head_dim/2], read into rope_scaling).
  // FormatError for non-finite or out-of-range hyper-parameters (rope.freq_base must be finite and > 1,
  // layer_norm_rms_epsilon in (0, 1)).
  // llama2.c: arch llama, interleaved RoPE, theta 10000, eps 1e-5, context = seq_len, all tensors F32.
  friend WeightSource load_llama2c(Llama2cFile file);
  friend void read_family_tensors(WeightSource& ws, const std::string& ctx);

  // FormatError naming the first tensor (and element) holding a NaN or infinity. Dequantizes every tensor
  // once (about as long as loading): for `--check-weights`, not done by default.
  void check_finite() const;
  // FormatError if the model file changed or was truncated since it was opened (see mapped_file.h): tensor
  // data read after such a change is not the model's. Call after reading the tensors.
  void check_unchanged() const;

 private:
  void add(WeightTensor t);
  void validate() const;  // checks all canonical tensors exist with the shapes above, and no others
  LlamaConfig cfg_;
  std::map<std::string, WeightTensor> tensors_;
  std::shared_ptr<const GgufFile> gguf_;
  std::shared_ptr<const Llama2cFile> l2c_;
};

WeightSource load_gguf_llama(GgufFile file);
WeightSource load_gguf_llama(const std::string& path);
WeightSource load_llama2c(Llama2cFile file);
WeightSource load_llama2c(const std::string& path);

}  // namespace wgrt
