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

namespace wgrt::test {

// Fails (fatally) at the first element outside 1e-4 + 1e-3 |want|, naming `what` and the index.
inline void expect_attn_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 + 1e-3 * std::fabs(want[i])) << what << " at " << i;
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
