// Plain CPU reference forward pass of the Llama architecture (the test oracle for the GPU engine).
// Follows llama2.c run.c `forward` step by step, generalized:
//   x = tok_embd[token]
//   per layer: xb = rmsnorm(x, attn_norm, eps); q,k,v = W xb (+ bias if has_qkv_bias);
//              if has_qk_norm: per-head rmsnorm of q and k over head_dim (attn_q_norm / attn_k_norm);
//              RoPE on q,k at `pos` (interleaved pairs or rotate-half, theta^(-2i/head_dim));
//              cache k,v at pos; per query head h (kv head h / (n_heads/n_kv_heads)): softmax over
//              t in [0,pos] of q.k_t / sqrt(head_dim), weighted sum of v_t; x += attn_output * that;
//              xb = rmsnorm(x, ffn_norm); x += ffn_down * (silu(ffn_gate xb) * (ffn_up xb))
//   logits = (output or tok_embd) * rmsnorm(x, output_norm)
// rmsnorm(x, w) = w * x / sqrt(mean(x^2) + eps). All dot products and sums accumulate in double; stored
// activations are float (as in run.c). Weights are dequantized to f32 once in the constructor.
// f16_kv: every cached k (after RoPE) and v value is rounded to f16 (to nearest even), as wgrt's f16 KV cache holds
// them (the default of Llm where head_dim % 4 == 0: test::llm_kv_f16).
// forward() must be called with pos = 0, 1, 2, ... in order (it appends to the KV cache); pos must be below
// config.context_length (InvalidArgument otherwise); token must be in [0, vocab).
#pragma once
#include <vector>

#include "formats/model_weights.h"

namespace wgrt::test {

class CpuLlama {
 public:
  CpuLlama(const LlamaConfig& cfg, const WeightSource& weights, bool f16_kv = false);
  std::vector<float> forward(int token, int pos);  // logits [vocab]
  const LlamaConfig& config() const { return cfg_; }

 private:
  struct Layer {
    std::vector<float> attn_norm, wq, wk, wv, wo, ffn_norm, w1, w2, w3, bq, bk, bv, q_norm, k_norm;
  };
  LlamaConfig cfg_;
  std::vector<float> tok_embd_, output_norm_, output_;
  std::vector<Layer> layers_;
  std::vector<std::vector<float>> key_cache_, value_cache_;  // per layer: [pos][kv_dim]
  int next_pos_ = 0;
  bool f16_kv_ = false;
};

}  // namespace wgrt::test
