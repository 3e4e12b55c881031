// Direct convolution for grouped and depthwise cases (any groups), one invocation per output element
// (conv_gather_body.wgsl):
//   out[n, o, oh, ow] = bias[o] + sum_{c < cpg, ky, kx} W[o, c, ky, kx] * x[n, g*cpg + c, iy, ix]
//   g = o / opg, iy = oh*sh - ph + ky*dh, ix = ow*sw - pw + kx*dw (zero padding outside the image).
#include "ops/conv/conv_gather_body.wgsl"

fn conv_gather(n : u32, o : u32, oh : u32, ow : u32) -> f32 {
  let g = o / p.opg;
  let iy0 = i32(oh * p.sh) - i32(p.ph);
  let ix0 = i32(ow * p.sw) - i32(p.pw);
  var acc = 0.0;
  for (var c = 0u; c < p.cpg; c++) {
    let x_base = (n * p.C + g * p.cpg + c) * p.H;
    let w_base = (o * p.cpg + c) * p.kh;
    for (var ky = 0u; ky < p.kh; ky++) {
      let iy = iy0 + i32(ky * p.dh);
      if (iy < 0 || iy >= i32(p.H)) {
        continue;
      }
      for (var kx = 0u; kx < p.kw; kx++) {
        let ix = ix0 + i32(kx * p.dw);
        if (ix >= 0 && ix < i32(p.W)) {
          acc += w[(w_base + ky) * p.kw + kx] * x[(x_base + u32(iy)) * p.W + u32(ix)];
        }
      }
    }
  }
  return acc;
}
