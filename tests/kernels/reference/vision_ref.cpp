#include "reference/vision_ref.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace wgrt::test::vref {

std::vector<float> conv2d(const Conv2d& c, const std::vector<float>& x, const std::vector<float>& w,
                          const std::vector<float>& bias) {
  const int64_t OH = c.OH(), OW = c.OW(), cpg = c.C / c.groups, opg = c.O / c.groups;
  std::vector<float> out(size_t(c.N * c.O * OH * OW));
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t o = 0; o < c.O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double s = bias.empty() ? 0.0 : bias[size_t(o)];
          const int64_t g = o / opg;
          for (int64_t ci = 0; ci < cpg; ++ci)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t iy = oy * c.sh - c.ph + ky * c.dh, ix = ox * c.sw - c.pw + kx * c.dw;
                if (iy < 0 || iy >= c.H || ix < 0 || ix >= c.W) continue;
                s += double(w[size_t(((o * cpg + ci) * c.kh + ky) * c.kw + kx)]) *
                     x[size_t(((n * c.C + g * cpg + ci) * c.H + iy) * c.W + ix)];
              }
          out[size_t(((n * c.O + o) * OH + oy) * OW + ox)] = float(s);
        }
  return out;
}

namespace {
void norm_block(const float* x, float* y, int64_t L, double eps, const std::function<double(int64_t, double)>& affine) {
  double m = 0;
  for (int64_t i = 0; i < L; ++i) m += x[i];
  m /= double(L);
  double v = 0;
  for (int64_t i = 0; i < L; ++i) v += (x[i] - m) * (x[i] - m);
  v /= double(L);
  const double r = 1.0 / std::sqrt(v + eps);
  for (int64_t i = 0; i < L; ++i) y[i] = float(affine(i, (x[i] - m) * r));
}
}  // namespace

std::vector<float> layer_norm(const std::vector<float>& x, int64_t L, const std::vector<float>& w,
                              const std::vector<float>& b, double eps) {
  std::vector<float> y(x.size());
  for (size_t r = 0; r < x.size() / size_t(L); ++r)
    norm_block(&x[r * size_t(L)], &y[r * size_t(L)], L, eps, [&](int64_t i, double v) {
      if (!w.empty()) v *= w[size_t(i)];
      if (!b.empty()) v += b[size_t(i)];
      return v;
    });
  return y;
}

std::vector<float> group_norm(const std::vector<float>& x, int64_t N, int64_t C, int64_t inner, int64_t G,
                              const std::vector<float>& w, const std::vector<float>& b, double eps) {
  std::vector<float> y(x.size());
  const int64_t cpg = C / G, L = cpg * inner;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      const size_t off = size_t((n * G + g) * L);
      norm_block(&x[off], &y[off], L, eps, [&](int64_t i, double v) {
        const size_t c = size_t(g * cpg + i / inner);
        if (!w.empty()) v *= w[c];
        if (!b.empty()) v += b[c];
        return v;
      });
    }
  return y;
}

std::vector<float> batch_norm(const std::vector<float>& x, int64_t N, int64_t C, int64_t inner,
                              const std::vector<float>& w, const std::vector<float>& b,
                              const std::vector<float>& mean, const std::vector<float>& var, double eps) {
  std::vector<float> y(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const size_t k = size_t((n * C + c) * inner + i);
        double v = (x[k] - double(mean[size_t(c)])) / std::sqrt(double(var[size_t(c)]) + eps);
        if (!w.empty()) v *= w[size_t(c)];
        if (!b.empty()) v += b[size_t(c)];
        y[k] = float(v);
      }
  return y;
}

namespace {
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode) {
  // PyTorch's documented output size: floor or ceil of (in + 2 pad - d (k - 1) - 1) / s + 1, and in ceil mode
  // the last window must start inside the image or the left padding.
  const double x = double(in + 2 * pad - d * (k - 1) - 1) / double(s);
  int64_t out = int64_t(ceil_mode ? std::ceil(x) : std::floor(x)) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}
}  // namespace

int64_t Pool2d::OH() const { return pool_out(H, kh, ph, sh, dh, ceil_mode); }
int64_t Pool2d::OW() const { return pool_out(W, kw, pw, sw, dw, ceil_mode); }

std::vector<float> max_pool2d(const Pool2d& p, const std::vector<float>& x) {
  const int64_t OH = p.OH(), OW = p.OW();
  std::vector<float> y(size_t(p.planes * OH * OW));
  for (int64_t c = 0; c < p.planes; ++c)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t ky = 0; ky < p.kh; ++ky)
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            const int64_t iy = oy * p.sh - p.ph + ky * p.dh, ix = ox * p.sw - p.pw + kx * p.dw;
            if (iy < 0 || iy >= p.H || ix < 0 || ix >= p.W) continue;
            const float v = x[size_t((c * p.H + iy) * p.W + ix)];
            if (std::isnan(v) || v > m) m = v;
            if (std::isnan(m)) break;
          }
        y[size_t((c * OH + oy) * OW + ox)] = m;
      }
  return y;
}

std::vector<float> avg_pool2d(const Pool2d& p, const std::vector<float>& x) {
  const int64_t OH = p.OH(), OW = p.OW();
  std::vector<float> y(size_t(p.planes * OH * OW));
  for (int64_t c = 0; c < p.planes; ++c)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        // The window clipped to the padded image counts for count_include_pad; its part inside the image
        // is summed.
        const int64_t y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
        const int64_t y1 = std::min(y0 + p.kh, p.H + p.ph), x1 = std::min(x0 + p.kw, p.W + p.pw);
        double s = 0;
        int64_t inside = 0;
        for (int64_t iy = std::max<int64_t>(y0, 0); iy < std::min(y1, p.H); ++iy)
          for (int64_t ix = std::max<int64_t>(x0, 0); ix < std::min(x1, p.W); ++ix) {
            s += x[size_t((c * p.H + iy) * p.W + ix)];
            ++inside;
          }
        const double div = p.divisor ? double(p.divisor) : p.count_include_pad ? double((y1 - y0) * (x1 - x0)) : double(inside);
        y[size_t((c * OH + oy) * OW + ox)] = float(s / div);
      }
  return y;
}

std::vector<float> upsample_nearest(const std::vector<float>& x, int64_t planes, int64_t H, int64_t W, int64_t OH,
                                    int64_t OW, double sf_h, double sf_w) {
  const float scy = sf_h > 0 ? float(1.0 / sf_h) : float(H) / float(OH);
  const float scx = sf_w > 0 ? float(1.0 / sf_w) : float(W) / float(OW);
  std::vector<float> y(size_t(planes * OH * OW));
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        const int64_t iy = std::min<int64_t>(int64_t(std::floor(float(oy) * scy)), H - 1);
        const int64_t ix = std::min<int64_t>(int64_t(std::floor(float(ox) * scx)), W - 1);
        y[size_t((c * OH + oy) * OW + ox)] = x[size_t((c * H + iy) * W + ix)];
      }
  return y;
}

std::vector<float> upsample_bilinear(const std::vector<float>& x, int64_t planes, int64_t H, int64_t W, int64_t OH,
                                     int64_t OW, bool align, double sf_h, double sf_w) {
  auto scale = [&](int64_t in, int64_t out, double sf) -> double {
    if (align) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
    return sf > 0 ? 1.0 / sf : double(in) / double(out);
  };
  const double scy = scale(H, OH, sf_h), scx = scale(W, OW, sf_w);
  auto src = [&](int64_t o, double sc) { return align ? sc * double(o) : std::max(sc * (double(o) + 0.5) - 0.5, 0.0); };
  std::vector<float> y(size_t(planes * OH * OW));
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        const double sy = src(oy, scy), sx = src(ox, scx);
        const int64_t y0 = std::min<int64_t>(int64_t(sy), H - 1), x0 = std::min<int64_t>(int64_t(sx), W - 1);
        const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
        const double ly = sy - double(y0), lx = sx - double(x0);
        auto at = [&](int64_t iy, int64_t ix) { return double(x[size_t((c * H + iy) * W + ix)]); };
        y[size_t((c * OH + oy) * OW + ox)] =
            float((1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) + ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1)));
      }
  return y;
}

std::vector<float> constant_pad(const std::vector<float>& x, const std::vector<int64_t>& d,
                                const std::vector<int64_t>& pad, float value, std::vector<int64_t>& od) {
  const size_t R = d.size();
  std::vector<int64_t> lo(R, 0);
  od = d;
  for (size_t j = 0; 2 * j < pad.size(); ++j) {
    lo[R - 1 - j] = pad[2 * j];
    od[R - 1 - j] = d[R - 1 - j] + pad[2 * j] + pad[2 * j + 1];
  }
  int64_t n = 1;
  for (int64_t v : od) n *= v;
  std::vector<float> y(static_cast<size_t>(n));
  std::vector<int64_t> c(R);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, src = 0, stride = 1;
    bool in = true;
    for (size_t k = R; k-- > 0;) {
      const int64_t ck = rem % od[k] - lo[k];
      rem /= od[k];
      if (ck < 0 || ck >= d[k]) in = false;
      src += ck * stride;
      stride *= d[k];
    }
    y[size_t(i)] = in ? x[size_t(src)] : value;
  }
  return y;
}

std::vector<float> bmm(const std::vector<float>& a, const std::vector<float>& b, int64_t Z, int64_t M, int64_t K,
                       int64_t N) {
  std::vector<float> c(size_t(Z * M * N));
  for (int64_t z = 0; z < Z; ++z)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += double(a[size_t((z * M + m) * K + k)]) * b[size_t((z * K + k) * N + n)];
        c[size_t((z * M + m) * N + n)] = float(s);
      }
  return c;
}

std::vector<float> sdpa(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                        const std::vector<float>& mask, int64_t BH, int64_t Sq, int64_t Skv, int64_t D, int64_t Dv,
                        double scale) {
  std::vector<float> out(size_t(BH * Sq * Dv), 0.0f);
  std::vector<double> s(static_cast<size_t>(Skv));
  for (int64_t z = 0; z < BH; ++z)
    for (int64_t i = 0; i < Sq; ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < Skv; ++j) {
        double d = 0;
        for (int64_t t = 0; t < D; ++t) d += double(q[size_t((z * Sq + i) * D + t)]) * k[size_t((z * Skv + j) * D + t)];
        d *= scale;
        if (!mask.empty()) d += mask[size_t((z * Sq + i) * Skv + j)];
        s[size_t(j)] = d;
        m = std::max(m, d);
      }
      if (std::isinf(m) && m < 0) continue;  // fully masked: zeros
      double l = 0;
      for (auto& e : s) l += (e = std::exp(e - m));
      for (int64_t t = 0; t < Dv; ++t) {
        double o = 0;
        for (int64_t j = 0; j < Skv; ++j) o += s[size_t(j)] * v[size_t((z * Skv + j) * Dv + t)];
        out[size_t((z * Sq + i) * Dv + t)] = float(o / l);
      }
    }
  return out;
}

}  // namespace wgrt::test::vref
