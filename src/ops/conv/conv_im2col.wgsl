// The implicit-im2col B operand of the convolution GEMMs (conv_gemm.wgsl, conv_gemm_cpu.wgsl): B(z, k, q) for
// output pixel q and k = (c * kh + ky) * kw + kx, read from x (bound as b, u32 words of f32) at image offset
// b_base; 0 in the zero padding.
// The kernel geometry is constant (conv_geometry.wgsl): a pointwise kernel reads x[c, q] with no decomposition
// of k and no bounds test.
#include "ops/conv/conv_params.wgsl"
#include "ops/conv/conv_geometry.wgsl"

@group(0) @binding(6) var<uniform> g : ConvParams;

// Top-left input coordinate of output pixel q's window.
fn im2col_pixel(q : u32) -> vec2<i32> {
  return vec2<i32>(i32((q / g.OW) * CONV_SH) - i32(CONV_PH), i32((q % g.OW) * CONV_SW) - i32(CONV_PW));
}

fn im2col(b_base : u32, px : vec2<i32>, k : u32) -> f32 {
  if (CONV_POINTWISE) {  // OH = H, OW = W: the window origin is the pixel itself, always inside
    return bitcast<f32>(b[b_base + (k * g.H + u32(px.x)) * g.W + u32(px.y)]);
  }
  let khw = CONV_KH * CONV_KW;
  let c = k / khw;
  let r = k % khw;
  let iy = px.x + i32((r / CONV_KW) * CONV_DH);
  let ix = px.y + i32((r % CONV_KW) * CONV_DW);
  if (iy >= 0 && iy < i32(g.H) && ix >= 0 && ix < i32(g.W)) {
    return bitcast<f32>(b[b_base + (c * g.H + u32(iy)) * g.W + u32(ix)]);
  }
  return 0.0;
}
