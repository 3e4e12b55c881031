#include "ops/linear/q4gsw.h"

#include <fmt/format.h>

#include <cmath>

#include "wgrt/error.h"

namespace wgrt::ops {

bool q4gsw_shape_ok(int64_t K, int64_t G) { return (G == 32 || G == 64 || G == 128) && K > 0 && K % G == 0; }

Q4gswWeights q4gsw_quantize(std::span<const float> w, int64_t N, int64_t K, int64_t G) {
  if (!q4gsw_shape_ok(K, G) || N < 0)
    throw InvalidArgument(fmt::format("q4gsw: K = {} must be a positive multiple of the group size {} (32, 64 or 128)", K, G));
  if (int64_t(w.size()) != N * K) throw InvalidArgument(fmt::format("q4gsw: {} values given for [{}, {}]", w.size(), N, K));
  Q4gswWeights q;
  q.qweight.assign(size_t(N * K / 8), 0);
  q.scales.assign(size_t(N * K / G), 0.0f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < K / G; ++g) {
      const float* src = w.data() + n * K + g * G;
      float amax = 0, signed_max = 0;
      for (int64_t i = 0; i < G; ++i)
        if (std::fabs(src[i]) > amax) amax = std::fabs(src[i]), signed_max = src[i];
      float d = signed_max / -8.0f;
      float inv = d != 0 ? 1.0f / d : 0.0f;
      q.scales[size_t(n * (K / G) + g)] = d;
      for (int64_t i = 0; i < G; ++i) {
        int code = int(std::lround(src[i] * inv)) + 8;
        code = code < 0 ? 0 : code > 15 ? 15 : code;
        int64_t k = g * G + i;
        q.qweight[size_t(n * (K / 8) + k / 8)] |= uint32_t(code) << (4 * (k % 8));
      }
    }
  return q;
}

std::vector<float> q4gsw_dequantize(std::span<const uint32_t> qweight, std::span<const float> scales, int64_t N,
                                    int64_t K, int64_t G) {
  if (!q4gsw_shape_ok(K, G) || int64_t(qweight.size()) != N * K / 8 || int64_t(scales.size()) != N * K / G)
    throw InvalidArgument(fmt::format("q4gsw_dequantize: bad shape N {} K {} G {}", N, K, G));
  std::vector<float> w(size_t(N * K));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      uint32_t code = (qweight[size_t(n * (K / 8) + k / 8)] >> (4 * (k % 8))) & 15u;
      w[size_t(n * K + k)] = (float(code) - 8.0f) * scales[size_t(n * (K / G) + k / G)];
    }
  return w;
}

}  // namespace wgrt::ops
