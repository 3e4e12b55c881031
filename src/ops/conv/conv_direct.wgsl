// Direct convolution for grouped and depthwise cases (any groups), one invocation per output element
// (conv_gather_body.wgsl):
//   out[n, o, oh, ow] = bias[o] + sum_{c < cpg, ky, kx} W[o, c, ky, kx] * x[n, g*cpg + c, iy, ix]
//   g = o / opg, iy = oh*sh - ph + ky*dh, ix = ow*sw - pw + kx*dw (zero padding outside the image).
#include "ops/conv/conv_gather_body.wgsl"

fn conv_gather(n : u32, o : u32, oh : u32, ow : u32) -> f32 {
  let g = o / p.opg;
  let iy0 = i32(oh * CONV_SH) - i32(CONV_PH);
  let ix0 = i32(ow * CONV_SW) - i32(CONV_PW);
  var acc = 0.0;
  for (var c = 0u; c < p.cpg; c++) {
    let x_base = (n * p.C + g * p.cpg + c) * p.H;
    let w_base = (o * p.cpg + c) * CONV_KH;
    for (var ky = 0u; ky < CONV_KH; ky++) {
      let iy = iy0 + i32(ky * CONV_DH);
      if (iy < 0 || iy >= i32(p.H)) {
        continue;
      }
      for (var kx = 0u; kx < CONV_KW; kx++) {
        let ix = ix0 + i32(kx * CONV_DW);
        if (ix >= 0 && ix < i32(p.W)) {
          acc += w[(w_base + ky) * CONV_KW + kx] * x[(x_base + u32(iy)) * p.W + u32(ix)];
        }
      }
    }
  }
  return acc;
}
