// Plain C++ references (double accumulation) for the vision op tests: convolution, norms, pooling,
// resampling, padding, matrix products and non-causal SDPA. Written from PyTorch's documented semantics,
// independently of the kernels. Layouts are contiguous row-major (NCHW for images).
#pragma once
#include <cstdint>
#include <vector>

namespace wgrt::test::vref {

struct Conv2d {
  int64_t N, C, H, W, O, kh, kw, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
  int64_t OH() const { return (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int64_t OW() const { return (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
};
// x [N,C,H,W], w [O,C/groups,kh,kw], bias empty or [O] -> [N,O,OH,OW].
std::vector<float> conv2d(const Conv2d& c, const std::vector<float>& x, const std::vector<float>& w,
                          const std::vector<float>& bias);

// Normalisation over rows of L (biased variance); w/b empty or of length L.
std::vector<float> layer_norm(const std::vector<float>& x, int64_t L, const std::vector<float>& w,
                              const std::vector<float>& b, double eps);
// x [N, C, inner]; w/b empty or [C].
std::vector<float> group_norm(const std::vector<float>& x, int64_t N, int64_t C, int64_t inner, int64_t G,
                              const std::vector<float>& w, const std::vector<float>& b, double eps);
std::vector<float> batch_norm(const std::vector<float>& x, int64_t N, int64_t C, int64_t inner,
                              const std::vector<float>& w, const std::vector<float>& b,
                              const std::vector<float>& mean, const std::vector<float>& var, double eps);

struct Pool2d {
  int64_t planes, H, W, kh, kw, sh, sw, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil_mode = false, count_include_pad = true;
  int64_t divisor = 0;  // 0: none
  int64_t OH() const;
  int64_t OW() const;
};
std::vector<float> max_pool2d(const Pool2d& p, const std::vector<float>& x);
std::vector<float> avg_pool2d(const Pool2d& p, const std::vector<float>& x);

// x [planes, H, W] -> [planes, OH, OW]; sf_h/sf_w > 0: scale factors given (source scale 1/sf).
std::vector<float> upsample_nearest(const std::vector<float>& x, int64_t planes, int64_t H, int64_t W, int64_t OH,
                                    int64_t OW, double sf_h = 0, double sf_w = 0);
std::vector<float> upsample_bilinear(const std::vector<float>& x, int64_t planes, int64_t H, int64_t W, int64_t OH,
                                     int64_t OW, bool align_corners, double sf_h = 0, double sf_w = 0);

// F.pad(x, pad, value) for a tensor of dims `d`; returns the output and its dims in out_dims.
std::vector<float> constant_pad(const std::vector<float>& x, const std::vector<int64_t>& d,
                                const std::vector<int64_t>& pad, float value, std::vector<int64_t>& out_dims);

// c[z] = a[z] [M,K] @ b[z] [K,N] for z < Z.
std::vector<float> bmm(const std::vector<float>& a, const std::vector<float>& b, int64_t Z, int64_t M, int64_t K,
                       int64_t N);

// softmax(q k^T * scale + mask) v; q [BH,Sq,D], k [BH,Skv,D], v [BH,Skv,Dv]; mask empty or full [B,H,Sq,Skv]
// (pass already-broadcast values, BH = B*H). Rows with every key at -inf give 0.
std::vector<float> sdpa(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                        const std::vector<float>& mask, int64_t BH, int64_t Sq, int64_t Skv, int64_t D, int64_t Dv,
                        double scale);

}  // namespace wgrt::test::vref
