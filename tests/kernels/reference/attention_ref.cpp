#include "reference/attention_ref.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wgrt::ref {

std::vector<float> rope(const std::vector<float>& x, int64_t B, int64_t S, int64_t H, int64_t D, int64_t pos,
                        double theta, bool hf) {
  std::vector<float> y(x.size());
  const int64_t half = D / 2;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < H; ++h) {
        const size_t base = size_t(((b * S + s) * H + h) * D);
        for (int64_t i = 0; i < half; ++i) {
          const double ang = double(pos + s) * std::pow(theta, -2.0 * double(i) / double(D));
          const size_t ia = base + size_t(hf ? i : 2 * i), ib = base + size_t(hf ? i + half : 2 * i + 1);
          const double a = x[ia], c = x[ib];
          y[ia] = float(a * std::cos(ang) - c * std::sin(ang));
          y[ib] = float(c * std::cos(ang) + a * std::sin(ang));
        }
      }
  return y;
}

void cache_write(std::vector<float>& cache, const std::vector<float>& v, int64_t B, int64_t S, int64_t H, int64_t D,
                 int64_t c_max, int64_t pos) {
  const int64_t row = H * D;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      std::copy_n(v.begin() + (b * S + s) * row, row, cache.begin() + (b * c_max + pos + s) * row);
}

std::vector<float> attention(const std::vector<float>& q, const std::vector<float>& k_cache,
                             const std::vector<float>& v_cache, int64_t B, int64_t S, int64_t Hq, int64_t Hkv,
                             int64_t D, int64_t c_max, int64_t pos, bool causal, double scale, double softcap,
                             int64_t window) {
  std::vector<float> out(size_t(B * S * Hq * D));
  const int64_t group = Hq / Hkv;
  std::vector<double> sc;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t n = causal ? pos + s + 1 : pos + S;
        const int64_t hk = h / group;
        const float* qr = &q[size_t(((b * S + s) * Hq + h) * D)];
        sc.assign(size_t(n), 0.0);
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t t = 0; t < n; ++t) {
          const float* kr = &k_cache[size_t(((b * c_max + t) * Hkv + hk) * D)];
          double acc = 0;
          for (int64_t d = 0; d < D; ++d) acc += double(qr[d]) * double(kr[d]);
          sc[size_t(t)] = acc * scale;
          if (softcap > 0) sc[size_t(t)] = softcap * std::tanh(sc[size_t(t)] / softcap);
          if (window > 0 && pos + s - t >= window) sc[size_t(t)] = -std::numeric_limits<double>::infinity();
          mx = std::max(mx, sc[size_t(t)]);
        }
        double sum = 0;
        for (auto& e : sc) sum += (e = std::exp(e - mx));
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0;
          for (int64_t t = 0; t < n; ++t) acc += sc[size_t(t)] * double(v_cache[size_t(((b * c_max + t) * Hkv + hk) * D + d)]);
          out[size_t(((b * S + s) * Hq + h) * D + d)] = float(acc / sum);
        }
      }
  return out;
}

}  // namespace wgrt::ref
