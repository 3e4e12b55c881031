// Convolution with groups == 1 as an implicit-im2col GEMM, per image z: the tiled GEMM body
// (ops/linear/gemm_tiled_body.wgsl; CPU adapters: conv_gemm_cpu.wgsl) with B gathered from x:
//   out[z, o, q] = bias[o] + sum_k W[o, k] * X(z, k, q),   q = oh * OW + ow,  k = (c * kh + ky) * kw + kx,
//   X(z, k, q) = x[z, c, oh*sh - ph + ky*dh, ow*sw - pw + kx*dw]  (0 outside the image: zero padding).
// M = O (weight rows, [O, C*kh*kw] contiguous: a), N = OH*OW, K = C*kh*kw, batch = images (b = x, b_sb = C*H*W);
// the im2col matrix is never stored. The geometry is in `g` (ConvParams, conv_params.wgsl).
#include "ops/linear/gemm_tiled_body.wgsl"
#include "ops/conv/conv_im2col.wgsl"
#include "ops/conv/conv_epilogue.wgsl"

fn load_b_slice(k0 : u32, n0 : u32, lid : u32, b_base : u32) {
  // The pixel this invocation gathers (fixed over the slice): column nn = lid % 64 of the tile.
  let nn = lid % 64u;
  let px = im2col_pixel(n0 + nn);
  for (var i = 0u; i < 8u; i++) {
    let kk = lid / 64u + 4u * i;
    var v = 0.0;
    if (n0 + nn < p.N && k0 + kk < p.K) {
      v = im2col(b_base, px, k0 + kk);
    }
    Bs[kk * 16u + nn / 4u][nn % 4u] = v;
  }
}
