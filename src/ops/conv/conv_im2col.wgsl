// The implicit-im2col B operand of the convolution GEMMs (conv_gemm.wgsl, conv_gemm_cpu.wgsl): B(z, k, q) for
// output pixel q and k = (c * kh + ky) * kw + kx, read from x (bound as b, u32 words of f32) at image offset
// b_base; 0 in the zero padding.
#include "ops/conv/conv_params.wgsl"

@group(0) @binding(6) var<uniform> g : ConvParams;

// Top-left input coordinate of output pixel q's window.
fn im2col_pixel(q : u32) -> vec2<i32> {
  return vec2<i32>(i32((q / g.OW) * g.sh) - i32(g.ph), i32((q % g.OW) * g.sw) - i32(g.pw));
}

fn im2col(b_base : u32, px : vec2<i32>, k : u32) -> f32 {
  let khw = g.kh * g.kw;
  let c = k / khw;
  let r = k % khw;
  let iy = px.x + i32((r / g.kw) * g.dh);
  let ix = px.y + i32((r % g.kw) * g.dw);
  if (iy >= 0 && iy < i32(g.H) && ix >= 0 && ix < i32(g.W)) {
    return bitcast<f32>(b[b_base + (c * g.H + u32(iy)) * g.W + u32(ix)]);
  }
  return 0.0;
}
