// Direct convolution for grouped and depthwise cases (any groups), one invocation per output element:
//   out[n, o, oh, ow] = bias[o] + sum_{c < cpg, ky, kx} W[o, c, ky, kx] * x[n, g*cpg + c, iy, ix]
//   g = o / opg, iy = oh*sh - ph + ky*dh, ix = ow*sw - pw + kx*dw (zero padding outside the image).
// 64-wide workgroups over a folded 1-D grid (p.total = number of outputs).
#include "ops/common/index.wgsl"
#include "ops/conv/conv_direct_io.wgsl"


@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let idx = linear_workgroup(wid, nwg) * 64u + lid;
  if (idx >= p.total) {
    return;
  }
  let ow = idx % p.OW;
  let oh = (idx / p.OW) % p.OH;
  let o = (idx / (p.OW * p.OH)) % p.O;
  let n = idx / (p.OW * p.OH * p.O);
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
  if (p.has_bias != 0u) {
    acc += bias[o];
  }
  out[idx] = acc;
}
