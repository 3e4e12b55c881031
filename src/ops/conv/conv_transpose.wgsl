// Transposed 2-D convolution (the gradient of conv2d w.r.t. its input; PyTorch conv_transpose2d), one
// invocation per output element, gathering the inputs that reach it:
//   out[n, o, oy, ox] = bias[o] + sum_{c < cpg, ky, kx} W[g*cpg + c, o % opg, ky, kx] * x[n, g*cpg + c, iy, ix]
//   g = o / opg, where oy = iy*sh - ph + ky*dh (likewise x), i.e. iy = (oy + ph - ky*dh) / sh when divisible
//   and in range. Here C = input channels (cpg = C / groups), O = output channels (opg = O / groups); the
//   weight is [C, O/groups, kh, kw] as in PyTorch and ONNX. The body: conv_gather_body.wgsl.
// Only the taps with (oy + ph - ky*dh) % sh == 0 reach an output. With dilation 1 they are ky = r, r + sh, ...
// for r = (oy + ph) % sh: the loop visits just those (one tap per axis for the common kernel == stride
// upsampling), instead of testing every tap (lavapipe: 24 -> 24 channels, 80x80 -> 160x160, 243 -> see
// BENCHMARKS.md). Dilated kernels step through every tap and test it.
#include "ops/conv/conv_gather_body.wgsl"

// The first tap of one axis that can reach output coordinate o (padded by pad) and the step between such taps.
fn first_tap(o : u32, pad : u32, s : u32, d : u32) -> vec2<u32> {
  if (d == 1u) {
    return vec2<u32>((o + pad) % s, s);
  }
  return vec2<u32>(0u, 1u);
}

// The input coordinate tap k reaches from output coordinate o, or n (out of range) when it reaches none.
fn tap_input(o : u32, pad : u32, k : u32, s : u32, d : u32, n : u32) -> u32 {
  let t = i32(o + pad) - i32(k * d);
  if (t < 0 || t % i32(s) != 0) {
    return n;
  }
  return min(u32(t) / s, n);
}

fn conv_gather(n : u32, o : u32, oy : u32, ox : u32) -> f32 {
  let g = o / p.opg;
  let ol = o % p.opg;
  let ty = first_tap(oy, CONV_PH, CONV_SH, CONV_DH);
  let tx = first_tap(ox, CONV_PW, CONV_SW, CONV_DW);
  let hw = p.H * p.W;
  let wstep = p.opg * CONV_KH * CONV_KW;
  var acc = 0.0;
  for (var ky = ty.x; ky < CONV_KH; ky += ty.y) {
    let iy = tap_input(oy, CONV_PH, ky, CONV_SH, CONV_DH, p.H);
    if (iy >= p.H) {
      continue;
    }
    for (var kx = tx.x; kx < CONV_KW; kx += tx.y) {
      let ix = tap_input(ox, CONV_PW, kx, CONV_SW, CONV_DW, p.W);
      if (ix >= p.W) {
        continue;
      }
      var xi = (n * p.C + g * p.cpg) * hw + iy * p.W + ix;
      var wi = ((g * p.cpg * p.opg + ol) * CONV_KH + ky) * CONV_KW + kx;
      for (var c = 0u; c < p.cpg; c++) {
        acc += w[wi] * x[xi];
        xi += hw;
        wi += wstep;
      }
    }
  }
  return acc;
}
