// The int8-activation reference of the block-format linear tests (linear_mmq_ggml_test.cpp: the int8 prefill
// GEMM; linear_ggml_int8_test.cpp: the int8 block GEMV): x quantized per 32-k block as quantize_q8.wgsl does
// (q = round_half_even(x * 127 / amax), d = amax / 127), times the src/formats decoders' weights (bit-exact with
// llama.cpp), accumulated in double.
// Tolerance: |gpu - ref| <= 1e-5 * sum_k |xq_k W_nk| + 1e-6 + sum_{k near a tie} d_kb |W_nk|. The integer sums are
// exact, so the first two terms cover the f32 scale products and the f32 accumulation; the third covers elements
// whose x * 127 / amax lies within 1e-4 of a rounding tie, where the GPU's division (2.5 ulp in WGSL) may round q
// the other way (one step of d).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ggml_test_blocks.h"

namespace wgrt::test {

// x quantized as quantize_q8.wgsl does: xq = q * d per element; tie[i] = 1 where x * 127 / amax is within 1e-4 of
// a rounding tie (where the GPU may round the other way), dq[i] = d of its block.
struct Q8 {
  std::vector<double> xq, dq;
  std::vector<char> tie;
};
inline Q8 quantize_rows(const std::vector<float>& x, int64_t M, int64_t K) {
  Q8 q{std::vector<double>(x.size()), std::vector<double>(x.size()), std::vector<char>(x.size())};
  for (int64_t b = 0; b < M * K / 32; ++b) {
    float amax = 0;
    for (int64_t i = b * 32; i < b * 32 + 32; ++i) amax = std::max(amax, std::fabs(x[size_t(i)]));
    const float d = amax / 127.0f, inv = amax > 0 ? 127.0f / amax : 0.0f;
    for (int64_t i = b * 32; i < b * 32 + 32; ++i) {
      const float v = x[size_t(i)] * inv;
      const float r = std::clamp(std::nearbyint(v), -127.0f, 127.0f);
      q.xq[size_t(i)] = double(r) * double(d);
      q.dq[size_t(i)] = d;
      q.tie[size_t(i)] = std::fabs(std::fabs(v - std::floor(v)) - 0.5f) < 1e-4f;
    }
  }
  return q;
}

// Runs M rows; returns the outputs outside the bound (failing the test for up to 3 of them where `report`).
// int8 false: the GEMV route (M <= gemv_max_rows), which reads the f32 x: the reference uses x itself.
inline int check_mmq(GgmlLinear& r, int64_t M, int64_t N, int64_t K, uint32_t seed, const std::string& what,
              bool report = true, bool int8 = true) {
  std::vector<float> x = wgrt::test::ref::random_floats(size_t(M * K), seed);
  for (int64_t i = 0; i < M * K; ++i) x[size_t(i)] *= std::ldexp(1.0f, int((i / 32) % 7) - 3);  // block magnitudes
  r.exe->set_input(r.x, {M, K}, std::span<const float>(x));
  r.exe->execute();
  EXPECT_EQ(r.exe->dims(r.out), (Dims{M, N})) << what;
  const std::vector<float> got = r.exe->read_f32(r.out);
  Q8 q = quantize_rows(x, M, K);
  if (!int8) q = Q8{std::vector<double>(x.begin(), x.end()), q.dq, std::vector<char>(x.size(), 0)};
  int bad = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = r.bias.empty() ? 0.0 : r.bias[size_t(n)], mag = 0, ties = 0;
      for (int64_t k = 0; k < K; ++k) {
        const size_t i = size_t(m * K + k);
        const double w = r.w[size_t(n * K + k)], p = q.xq[i] * w;
        s += p, mag += std::fabs(p);
        if (q.tie[i]) ties += q.dq[i] * std::fabs(w);
      }
      const double d = std::fabs(double(got[size_t(m * N + n)]) - s);
      if (!(d <= 1e-5 * mag + 1e-6 + ties) && ++bad <= 3 && report)
        ADD_FAILURE() << what << " m " << m << " n " << n << ": gpu " << got[size_t(m * N + n)] << " ref " << s
                      << " |diff| " << d << " > " << 1e-5 * mag + 1e-6 + ties;
    }
  return bad;
}

// Whether r's graph has an active dispatch of `kernel` ("file.wgsl:main") for its last execute's route.
// Every dispatch of the kernel counts (one per route, e.g. the quantize pass of the 4- and of the 8-row GEMV).
inline bool routed(GgmlLinear& r, const std::string& kernel) {
  const std::string dump = r.exe->dump();
  for (size_t at = dump.find(kernel); at != std::string::npos; at = dump.find(kernel, at + 1))
    if (dump.substr(at, dump.find('\n', at) - at).find("inactive") == std::string::npos) return true;
  return false;
}

}  // namespace wgrt::test
