#include "reference/ops_a_reference.h"

#include <cmath>
#include <limits>

namespace wgrt::test::ref {

std::vector<float> linear(std::span<const float> x, std::span<const float> w, std::span<const float> bias, int64_t M,
                          int64_t K, int64_t N) {
  std::vector<float> out(size_t(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = bias.empty() ? 0.0 : double(bias[size_t(n)]);
      const float* xr = x.data() + m * K;
      const float* wr = w.data() + n * K;
      for (int64_t k = 0; k < K; ++k) s += double(xr[k]) * double(wr[k]);
      out[size_t(m * N + n)] = float(s);
    }
  return out;
}

std::vector<float> q4gsw_decode(std::span<const uint32_t> qweight, std::span<const float> scales, int64_t N, int64_t K,
                                int64_t G) {
  std::vector<float> w(size_t(N * K));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      uint32_t word = qweight[size_t(n * (K / 8) + k / 8)];
      int code = int((word >> (4 * (k % 8))) & 0xF);
      w[size_t(n * K + k)] = float(code - 8) * scales[size_t(n * (K / G) + k / G)];
    }
  return w;
}

std::vector<float> rms_norm(std::span<const float> x, std::span<const float> w, int64_t D, double eps) {
  std::vector<float> out(x.size());
  for (size_t r = 0; r < x.size() / size_t(D); ++r) {
    double ss = 0;
    for (int64_t i = 0; i < D; ++i) ss += double(x[r * size_t(D) + size_t(i)]) * x[r * size_t(D) + size_t(i)];
    double inv = 1.0 / std::sqrt(ss / double(D) + eps);
    for (int64_t i = 0; i < D; ++i)
      out[r * size_t(D) + size_t(i)] = float(double(x[r * size_t(D) + size_t(i)]) * inv * double(w[size_t(i)]));
  }
  return out;
}

std::vector<float> embedding(std::span<const float> table, int64_t V, int64_t D, std::span<const int32_t> ids) {
  std::vector<float> out(ids.size() * size_t(D), 0.0f);
  for (size_t t = 0; t < ids.size(); ++t)
    if (ids[t] >= 0 && ids[t] < V)
      for (int64_t d = 0; d < D; ++d) out[t * size_t(D) + size_t(d)] = table[size_t(ids[t]) * size_t(D) + size_t(d)];
  return out;
}

std::vector<float> softmax(std::span<const float> x, int64_t D) {
  std::vector<float> out(x.size());
  for (size_t r = 0; r < x.size() / size_t(D); ++r) {
    const float* row = x.data() + r * size_t(D);
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < D; ++i) m = std::max(m, double(row[i]));
    double s = 0;
    for (int64_t i = 0; i < D; ++i)
      if (std::isfinite(m)) s += std::exp(double(row[i]) - m);
    for (int64_t i = 0; i < D; ++i)
      out[r * size_t(D) + size_t(i)] = s > 0 ? float(std::exp(double(row[i]) - m) / s) : 0.0f;
  }
  return out;
}

std::vector<int32_t> argmax(std::span<const float> x, int64_t D) {
  std::vector<int32_t> out(x.size() / size_t(D));
  for (size_t r = 0; r < out.size(); ++r) {
    int64_t best = -1;
    for (int64_t i = 0; i < D; ++i) {
      float v = x[r * size_t(D) + size_t(i)];
      if (std::isnan(v)) continue;
      if (best < 0 || v > x[r * size_t(D) + size_t(best)]) best = i;
    }
    out[r] = int32_t(best < 0 ? 0 : best);
  }
  return out;
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  if (s == 0) s = 1;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    v[i] = lo + (hi - lo) * float(s >> 8) / float(1u << 24);
  }
  return v;
}

}  // namespace wgrt::test::ref
