// Small deterministic synthetic model files for tests and fuzz seeds: a Llama-family GGUF (written with
// GgufWriter) and a llama2.c legacy checkpoint. Values are pseudo-random in [-0.5, 0.5) (norm weights in
// [0.5, 1.5)) from a per-tensor seed, so two calls with the same spec give the same bytes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/ggml_type.h"

namespace wgrt::test {

struct SynthSpec {
  std::string arch = "llama";  // written as general.architecture
  int dim = 32, hidden = 64, layers = 2, heads = 4, kv_heads = 2, vocab = 40, ctx = 32;
  bool qkv_bias = false, qk_norm = false, tied = true;
  GgmlType matrix_type = GgmlType::F32;  // F32, F16, Q4_0, Q8_0 for the 2-D weights
  std::optional<GgmlType> attn_v_type;   // attn_v of odd layers in another type (a Q4_K_M-like mix): those or Q5_0
  float rope_theta = 10000.0f;
  uint32_t seed = 1;
  // Reorder the rows of attn_q / attn_k (and their biases and q/k-norm weights) within each head from
  // rotate-half order to interleaved order: interleaved row 2i <- row i, row 2i+1 <- row i + head_dim/2.
  // A rotate-half (NEOX) model and the same model permuted this way with interleaved RoPE compute the same
  // function.
  bool permute_qk_to_interleaved = false;
};

std::vector<uint8_t> synth_llama_gguf(const SynthSpec& s);

// llama2.c legacy checkpoint with the given header (negative vocab -> own classifier), float values as above.
std::vector<uint8_t> synth_llama2c(int dim, int hidden, int layers, int heads, int kv_heads, int vocab, int seq_len,
                                   uint32_t seed = 1);

// Deterministic values: n floats in [lo, hi) from seed (splitmix64).
std::vector<float> synth_values(size_t n, uint64_t seed, float lo = -0.5f, float hi = 0.5f);

void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
std::vector<uint8_t> read_file(const std::string& path);

}  // namespace wgrt::test
