// RoPE frequency scaling (models/rope_scaling.h) against values worked out by hand from the formulas of
// llama.cpp's converter (Llama 3 factors) and ggml's CPU rope (linear, YaRN ramp and mscale, LongRoPE choice),
// head_dim 8, base 10000: unscaled frequencies 1, 0.1, 0.01, 0.001. Tolerance 1e-12 relative (double).
// The end-to-end check against llama.cpp is families_llamacpp_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "models/rope_scaling.h"
#include "models/synth.h"
#include "wgrt/error.h"

namespace wgrt::models {
namespace {

LlamaConfig cfg() {
  LlamaConfig c;
  c.head_dim = 8;
  c.rope_theta = 10000.0f;
  c.rope_theta_swa = 10000.0f;
  c.context_length = 512;
  c.rope_scaling.orig_context = 64;
  return c;
}

void expect_freqs(const RopeFrequencies& f, std::vector<double> want) {
  ASSERT_EQ(f.freq.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(f.freq[i], want[i], 1e-12 * want[i]) << "pair " << i;
}

TEST(RopeScaling, Llama3FactorsByHand) {
  // orig 128, low 1, high 4: wavelengths 2*pi*{1, 10, 100, 1000}; pair 0 is below 128/4 (factor 1), pair 1 is
  // between (smooth = (128/62.83 - 1)/3 = 0.345727, 1/((1 - s)/8 + s) = 2.3391168), pairs 2 and 3 above 128 (8).
  std::vector<float> f = llama3_rope_factors(8, 10000.0, 8.0, 1.0, 4.0, 128.0);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_NEAR(f[1], 2.339116789614229, 1e-6);
  EXPECT_EQ(f[2], 8.0f);
  EXPECT_EQ(f[3], 8.0f);
  LlamaConfig c = cfg();
  c.rope_scaling.freq_factors = f;
  RopeFrequencies r = rope_frequencies(c, 512, false);
  expect_freqs(r, {1.0, 0.1 / double(f[1]), 0.01 / 8, 0.001 / 8});
  EXPECT_EQ(r.mscale, 1.0);
}

TEST(RopeScaling, PlainLinearAndNone) {
  LlamaConfig c = cfg();
  expect_freqs(rope_frequencies(c, 512, false), {1.0, 0.1, 0.01, 0.001});
  c.rope_scaling.factor = 4;
  expect_freqs(rope_frequencies(c, 512, false), {0.25, 0.025, 0.0025, 0.00025});
  c.rope_scaling.type = RopeScaling::Type::None;  // llama.cpp: never scale with type none
  expect_freqs(rope_frequencies(c, 512, false), {1.0, 0.1, 0.01, 0.001});
  // Sliding-window layers: their own base and no factor (llama.cpp get_rope_freq_base/scale).
  c.rope_scaling.type = RopeScaling::Type::Linear;
  c.rope_theta_swa = 100.0f;
  expect_freqs(rope_frequencies(c, 512, true), {1.0, 0.31622776601683794, 0.1, 0.031622776601683794});
}

TEST(RopeScaling, YarnRampAndMscaleByHand) {
  // ggml_rope_yarn_corr_dims(8, 64, 10000, 32, 1): floor(-0.497) -> 0, ceil(1.008) -> 2. Pair i blends
  // interpolation (e/4) and extrapolation (e) with ramp 1 - clamp(i/2, 0, 1): 1, 0.5, 0, 0.
  LlamaConfig c = cfg();
  c.rope_scaling.type = RopeScaling::Type::Yarn;
  c.rope_scaling.factor = 4;
  RopeFrequencies r = rope_frequencies(c, 512, false);
  expect_freqs(r, {1.0, 0.0625, 0.0025, 0.00025});
  EXPECT_NEAR(r.mscale, 1.0 + 0.1 * std::log(4.0), 1e-12);  // 1.1386294
  c.rope_scaling.attn_factor = 0.5f;
  EXPECT_NEAR(rope_frequencies(c, 512, false).mscale, 0.5 * (1.0 + 0.1 * std::log(4.0)), 1e-12);
  // Tables: angle pos * freq, cos/sin times mscale.
  ops::RopeTables t = rope_tables_for(3, r);
  EXPECT_NEAR(t.cos[2 * 4 + 1], std::cos(2 * 0.0625) * r.mscale, 1e-7);
  EXPECT_NEAR(t.sin[2 * 4 + 1], std::sin(2 * 0.0625) * r.mscale, 1e-7);
}

TEST(RopeScaling, LongRopePicksLongFactorsPastTheOriginalContext) {
  LlamaConfig c = cfg();
  c.rope_scaling.long_factors = {2, 2, 4, 4};
  c.rope_scaling.short_factors = {1, 1, 1, 2};
  expect_freqs(rope_frequencies(c, 64, false), {1.0, 0.1, 0.01, 0.0005});      // context <= orig 64: short
  expect_freqs(rope_frequencies(c, 65, false), {0.5, 0.05, 0.0025, 0.00025});  // beyond: long
  c.rope_scaling.long_factors = {1, 2};
  EXPECT_THROW(rope_frequencies(c, 65, false), InvalidArgument);
}

}  // namespace
}  // namespace wgrt::models
