// CpuLlama's rotate-half (NEOX) RoPE, qkv bias and qk-norm paths, checked by an independent identity:
// a rotate-half model equals the interleaved-RoPE model whose q/k rows (and q/k biases, q/k-norm weights)
// are permuted rotate-half -> interleaved within each head (tests/support/synth_model.h). Tolerance 2e-5
// absolute on logits of magnitude ~1 (only float rounding order differs).
#include <gtest/gtest.h>

#include <cmath>

#include "formats/gguf.h"
#include "formats/model_weights.h"
#include "support/cpu_llama.h"
#include "support/synth_model.h"

namespace wgrt {
namespace {

WeightSource load(const test::SynthSpec& s) { return load_gguf_llama(GgufFile::from_bytes(test::synth_llama_gguf(s))); }

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - b[i]));
  return d;
}

void check_equivalent(test::SynthSpec neox) {
  test::SynthSpec inter = neox, plain = neox;
  inter.arch = plain.arch = "llama";
  inter.permute_qk_to_interleaved = true;
  WeightSource wn = load(neox), wi = load(inter), wp = load(plain);
  ASSERT_FALSE(wn.config().rope_interleaved);
  ASSERT_TRUE(wi.config().rope_interleaved);
  EXPECT_EQ(wn.config().has_qkv_bias, neox.qkv_bias);
  EXPECT_EQ(wn.config().has_qk_norm, neox.qk_norm);
  test::CpuLlama mn(wn.config(), wn), mi(wi.config(), wi), mp(wp.config(), wp);
  const int tokens[] = {1, 7, 33, 2, 39, 0, 5, 5};
  double worst_unpermuted = 0.0;
  for (int pos = 0; pos < 8; ++pos) {
    auto ln = mn.forward(tokens[pos], pos), li = mi.forward(tokens[pos], pos), lp = mp.forward(tokens[pos], pos);
    EXPECT_LT(max_diff(ln, li), 2e-5) << "pos " << pos;
    worst_unpermuted = std::max(worst_unpermuted, max_diff(ln, lp));
  }
  EXPECT_GT(worst_unpermuted, 1e-3) << "interleaved RoPE without the permutation should differ";
}

TEST(CpuLlamaRope, Qwen2RotateHalfWithBiasEqualsPermutedInterleaved) {
  test::SynthSpec s;
  s.arch = "qwen2";
  s.qkv_bias = true;
  s.rope_theta = 1000000.0f;
  check_equivalent(s);
}

TEST(CpuLlamaRope, Qwen3RotateHalfWithQkNormEqualsPermutedInterleaved) {
  test::SynthSpec s;
  s.arch = "qwen3";
  s.qk_norm = true;
  s.tied = false;
  s.heads = 2;
  s.kv_heads = 1;
  check_equivalent(s);
}

TEST(CpuLlamaRope, QuantizedMatricesLoadAndRun) {
  for (GgmlType t : {GgmlType::F16, GgmlType::Q8_0, GgmlType::Q4_0}) {
    test::SynthSpec s;
    s.matrix_type = t;
    WeightSource w = load(s);
    EXPECT_EQ(w.get("blk.1.ffn_down").type, t);
    test::CpuLlama m(w.config(), w);
    auto l = m.forward(3, 0);
    ASSERT_EQ(l.size(), 40u);
    for (float x : l) ASSERT_TRUE(std::isfinite(x));
  }
}

}  // namespace
}  // namespace wgrt
