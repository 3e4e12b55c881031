// Helpers shared by the attention and RoPE op tests (sdpa_test, sdpa_batched_test, rope_test): the closeness
// check those tests state (|gpu - ref| <= 1e-4 + 1e-3 |ref|, fp32 against the double-precision references of
// reference/attention_ref.h) and seeded standard-normal inputs.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "util/half.h"

namespace wgrt::test {

// Fails (fatally) at the first element outside 1e-4 + rel |want| (rel 1e-3 unless given), naming `what` and the
// index.
inline void expect_attn_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what,
                              double rel = 1e-3) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 + rel * std::fabs(want[i])) << what << " at " << i;
}

// An f16 KV cache's contents against a reference in f32: each value rounded to f16 (to nearest even; an adapter
// may round the other way, and a value computed in f32 may sit on the other side of a rounding boundary than the
// double-precision reference), so 2 f16 steps (2^-9 relative) on top of the f32 tolerance.
inline constexpr double kF16CacheRel = 1e-3 + 1.0 / 512;

// An f16 cache read back against the mirror of its values rounded to nearest even (f16_rounded): each element
// within one f16 step of it (2^-10 relative, or the smallest subnormal: an adapter may round the other way) and
// itself an f16 (the cache is not f32 underneath). Fails fatally at the first element that is not.
inline void expect_f16_cache(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_LE(std::fabs(got[i] - want[i]), std::fabs(want[i]) / 1024 + 6e-8) << what << " at " << i;
    ASSERT_EQ(f16_to_f32(f32_to_f16(got[i])), got[i]) << what << " at " << i << ": not an f16";
  }
}

// v with every element rounded to f16 and back (to nearest even, range +-65504 as kv_f16.wgsl stores it).
inline std::vector<float> f16_rounded(const std::vector<float>& v) {
  std::vector<float> r(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    r[i] = std::isnan(v[i]) ? v[i] : f16_to_f32(f32_to_f16(std::fmax(-65504.0f, std::fmin(65504.0f, v[i]))));
  return r;
}

// n draws of N(0, 1) from mt19937(seed).
inline std::vector<float> randn(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace wgrt::test
