// Transposed 2-D convolution (the gradient of conv2d w.r.t. its input; PyTorch conv_transpose2d), one
// invocation per output element, gathering the inputs that reach it:
//   out[n, o, oy, ox] = bias[o] + sum_{c < cpg, ky, kx} W[g*cpg + c, o % opg, ky, kx] * x[n, g*cpg + c, iy, ix]
//   g = o / opg, where oy = iy*sh - ph + ky*dh (likewise x), i.e. iy = (oy + ph - ky*dh) / sh when divisible
//   and in range. Here C = input channels (cpg = C / groups), O = output channels (opg = O / groups); the
//   weight is [C, O/groups, kh, kw] as in PyTorch and ONNX. The body: conv_gather_body.wgsl.
#include "ops/conv/conv_gather_body.wgsl"

fn conv_gather(n : u32, o : u32, oy : u32, ox : u32) -> f32 {
  let g = o / p.opg;
  let ol = o % p.opg;
  var acc = 0.0;
  for (var ky = 0u; ky < p.kh; ky++) {
    let ty = i32(oy + p.ph) - i32(ky * p.dh);
    if (ty < 0 || ty % i32(p.sh) != 0) {
      continue;
    }
    let iy = u32(ty) / p.sh;
    if (iy >= p.H) {
      continue;
    }
    for (var kx = 0u; kx < p.kw; kx++) {
      let tx = i32(ox + p.pw) - i32(kx * p.dw);
      if (tx < 0 || tx % i32(p.sw) != 0) {
        continue;
      }
      let ix = u32(tx) / p.sw;
      if (ix >= p.W) {
        continue;
      }
      for (var c = 0u; c < p.cpg; c++) {
        let ci = g * p.cpg + c;
        acc += w[((ci * p.opg + ol) * p.kh + ky) * p.kw + kx] * x[((n * p.C + ci) * p.H + iy) * p.W + ix];
      }
    }
  }
  return acc;
}
