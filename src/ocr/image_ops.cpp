// Resampling and packing for the OCR pipeline (see image_ops.h for the conventions).
#include "ocr/image_ops.h"

#include <algorithm>
#include <cmath>

#include "wgrt/error.h"

namespace wgrt::ocr {
namespace {

uint8_t sat(float v) { return uint8_t(std::clamp(std::lround(v), 0L, 255L)); }

Image blank(int w, int h) {
  Image o;
  o.width = w;
  o.height = h;
  o.rgb.assign(size_t(w) * h * 3, 0);
  return o;
}

// Coordinates and weights of one axis of a bilinear resize (cv2: half-pixel centers, clamped at the edges).
struct Tap {
  int i0, i1;
  float f;
};
std::vector<Tap> taps(int src, int out) {
  std::vector<Tap> t(out);
  const double scale = double(src) / out;
  for (int x = 0; x < out; ++x) {
    double s = (x + 0.5) * scale - 0.5;
    int i = int(std::floor(s));
    float f = float(s - i);
    if (i < 0) i = 0, f = 0;
    if (i >= src - 1) i = src - 1, f = 0;
    t[x] = {i, std::min(i + 1, src - 1), f};
  }
  return t;
}

float cubic(float t) {  // Keys cubic, a = -0.75 (OpenCV's INTER_CUBIC)
  const float a = -0.75f;
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

// Solves the 8 unknowns of the homography taking (u, v) -> (x, y) for 4 point pairs (Gaussian elimination
// with partial pivoting). Returns false when the system is singular.
bool homography(const float (*from)[2], const float (*to)[2], double h[9]) {
  double m[8][9] = {};
  for (int k = 0; k < 4; ++k) {
    double u = from[k][0], v = from[k][1], x = to[k][0], y = to[k][1];
    double r0[9] = {u, v, 1, 0, 0, 0, -u * x, -v * x, x};
    double r1[9] = {0, 0, 0, u, v, 1, -u * y, -v * y, y};
    std::copy(r0, r0 + 9, m[2 * k]);
    std::copy(r1, r1 + 9, m[2 * k + 1]);
  }
  for (int c = 0; c < 8; ++c) {
    int p = c;
    for (int r = c + 1; r < 8; ++r)
      if (std::fabs(m[r][c]) > std::fabs(m[p][c])) p = r;
    if (std::fabs(m[p][c]) < 1e-9) return false;
    std::swap(m[p], m[c]);
    for (int r = 0; r < 8; ++r) {
      if (r == c) continue;
      double f = m[r][c] / m[c][c];
      for (int k = c; k < 9; ++k) m[r][k] -= f * m[c][k];
    }
  }
  for (int i = 0; i < 8; ++i) h[i] = m[i][8] / m[i][i];
  h[8] = 1;
  return true;
}

}  // namespace

Image resize_bilinear(const Image& src, int out_w, int out_h) {
  if (src.width <= 0 || src.height <= 0 || out_w <= 0 || out_h <= 0)
    throw InvalidArgument("resize: empty source or target image");
  Image o = blank(out_w, out_h);
  const auto tx = taps(src.width, out_w), ty = taps(src.height, out_h);
  const size_t row = size_t(src.width) * 3;
  for (int y = 0; y < out_h; ++y) {
    const uint8_t* r0 = &src.rgb[ty[y].i0 * row];
    const uint8_t* r1 = &src.rgb[ty[y].i1 * row];
    const float fy = ty[y].f;
    uint8_t* d = &o.rgb[size_t(y) * out_w * 3];
    for (int x = 0; x < out_w; ++x) {
      const int a = tx[x].i0 * 3, b = tx[x].i1 * 3;
      const float fx = tx[x].f;
      for (int c = 0; c < 3; ++c) {
        float top = r0[a + c] + fx * (r0[b + c] - r0[a + c]);
        float bot = r1[a + c] + fx * (r1[b + c] - r1[a + c]);
        d[x * 3 + c] = sat(top + fy * (bot - top));
      }
    }
  }
  return o;
}

Image warp_quad(const Image& src, const Quad& quad, int out_w, int out_h) {
  if (src.width <= 0 || src.height <= 0 || out_w <= 0 || out_h <= 0)
    throw InvalidArgument("crop: empty source or target image");
  const float corners[4][2] = {{0, 0}, {float(out_w), 0}, {float(out_w), float(out_h)}, {0, float(out_h)}};
  float q[4][2];
  for (int k = 0; k < 4; ++k) q[k][0] = quad[k][0], q[k][1] = quad[k][1];
  double h[9];
  if (!homography(corners, q, h)) throw InvalidArgument("crop: degenerate text box (collinear corners)");
  Image o = blank(out_w, out_h);
  auto px = [&](int x, int y, int c) {
    x = std::clamp(x, 0, src.width - 1);
    y = std::clamp(y, 0, src.height - 1);
    return float(src.rgb[(size_t(y) * src.width + x) * 3 + c]);
  };
  for (int y = 0; y < out_h; ++y)
    for (int x = 0; x < out_w; ++x) {
      const double wz = h[6] * x + h[7] * y + h[8];
      const double sx = (h[0] * x + h[1] * y + h[2]) / wz, sy = (h[3] * x + h[4] * y + h[5]) / wz;
      const int ix = int(std::floor(sx)), iy = int(std::floor(sy));
      const float fx = float(sx - ix), fy = float(sy - iy);
      float wx[4], wy[4];
      for (int k = 0; k < 4; ++k) wx[k] = cubic(fx - (k - 1)), wy[k] = cubic(fy - (k - 1));
      for (int c = 0; c < 3; ++c) {
        float acc = 0;
        for (int j = 0; j < 4; ++j) {
          float r = 0;
          for (int i = 0; i < 4; ++i) r += wx[i] * px(ix - 1 + i, iy - 1 + j, c);
          acc += wy[j] * r;
        }
        o.rgb[(size_t(y) * out_w + x) * 3 + c] = sat(acc);
      }
    }
  return o;
}

Image rotate90_ccw(const Image& src) {
  Image o = blank(src.height, src.width);
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x)
      for (int c = 0; c < 3; ++c)  // (x, y) -> (y, W - 1 - x)
        o.rgb[(size_t(src.width - 1 - x) * o.width + y) * 3 + c] = src.rgb[(size_t(y) * src.width + x) * 3 + c];
  return o;
}

Image rotate180(const Image& src) {
  Image o = src;
  const size_t n = size_t(src.width) * src.height;
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) o.rgb[i * 3 + c] = src.rgb[(n - 1 - i) * 3 + c];
  return o;
}

void pack_bgr_chw(const Image& img, const std::array<float, 3>& mean, const std::array<float, 3>& stdev,
                  float* dst, int dst_w, int dst_h) {
  const size_t plane = size_t(dst_w) * dst_h;
  for (int c = 0; c < 3; ++c) {
    const int src_c = 2 - c;  // B, G, R
    const float scale = 1.0f / (255.0f * stdev[c]), bias = -mean[c] / stdev[c];
    for (int y = 0; y < img.height && y < dst_h; ++y)
      for (int x = 0; x < img.width && x < dst_w; ++x)
        dst[c * plane + size_t(y) * dst_w + x] = img.rgb[(size_t(y) * img.width + x) * 3 + src_c] * scale + bias;
  }
}

}  // namespace wgrt::ocr
