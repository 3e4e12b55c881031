// Plain C++ references (double accumulation) for the ops of part A: linear, q4gsw decoding, RMSNorm,
// embedding, softmax, argmax. Written independently of the kernels, for tests only.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace wgrt::test::ref {

// out[m][n] = sum_k x[m][k] * w[n][k] + bias[n]; x [M, K], w [N, K] (nn.Linear layout), bias empty or [N].
std::vector<float> linear(std::span<const float> x, std::span<const float> w, std::span<const float> bias, int64_t M,
                          int64_t K, int64_t N);

// W [N, K] decoded from the q4gsw layout: code of (n, k) = bits 4*(k%8).. of word qweight[n*K/8 + k/8];
// W = (code - 8) * scales[n*(K/G) + k/G].
std::vector<float> q4gsw_decode(std::span<const uint32_t> qweight, std::span<const float> scales, int64_t N, int64_t K,
                                int64_t G);

// Row-wise x / sqrt(mean(x^2) + eps) * w over rows of D.
std::vector<float> rms_norm(std::span<const float> x, std::span<const float> w, int64_t D, double eps);

// out[t] = table row ids[t] (D values), zeros for ids outside [0, V).
std::vector<float> embedding(std::span<const float> table, int64_t V, int64_t D, std::span<const int32_t> ids);

// Row-wise softmax over rows of D; -inf entries give 0, all -inf rows give zeros.
std::vector<float> softmax(std::span<const float> x, int64_t D);

// Row-wise argmax over rows of D: lowest index of the maximum, NaN ignored (all NaN: 0).
std::vector<int32_t> argmax(std::span<const float> x, int64_t D);

// Deterministic pseudo-random values in [lo, hi) (xorshift; seed selects the stream).
std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace wgrt::test::ref
