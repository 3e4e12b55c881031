// 2-D max / average pooling over x [planes, H, W] (planes = N*C), one invocation per output element.
// Window of output (oh, ow): rows oh*sh - ph + ky*dh (ky < kh), columns likewise; positions outside the
// image are skipped (max: implicit -inf padding; avg: zero padding, see the divisor).
// MODE 0 (max): the maximum; NaN propagates (as PyTorch: v > m || isnan(v)). A window with no valid
//   position (impossible for PyTorch-valid parameters) gives -inf.
// MODE 1 (avg, dilation 1): sum / divisor, divisor = divisor_override if set, else the window size clipped to
//   the padded image (count_include_pad) or to the image (count_include_pad false), as ATen's avg_pool2d.
// 64-wide workgroups over a folded 1-D grid.
#include "ops/common/index.wgsl"

override MODE : u32 = 0u;

struct Params {
  total : u32, H : u32, W : u32, OH : u32,
  OW : u32, kh : u32, kw : u32, sh : u32,
  sw : u32, ph : u32, pw : u32, dh : u32,
  dw : u32, include_pad : u32, divisor : u32, _pad : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

fn is_nan(v : f32) -> bool {
  let b = bitcast<u32>(v);
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u;
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let idx = linear_workgroup(wid, nwg) * 64u + lid;
  if (idx >= p.total) {
    return;
  }
  let ow = idx % p.OW;
  let oh = (idx / p.OW) % p.OH;
  let plane = idx / (p.OW * p.OH);
  let base = plane * p.H * p.W;
  let y0 = i32(oh * p.sh) - i32(p.ph);
  let x0 = i32(ow * p.sw) - i32(p.pw);
  if (MODE == 0u) {
    var m = 0.0;
    var have = false;
    var found_nan = false;
    for (var ky = 0u; ky < p.kh; ky++) {
      let iy = y0 + i32(ky * p.dh);
      if (iy < 0 || iy >= i32(p.H)) {
        continue;
      }
      for (var kx = 0u; kx < p.kw; kx++) {
        let ix = x0 + i32(kx * p.dw);
        if (ix >= 0 && ix < i32(p.W)) {
          let v = x[base + u32(iy) * p.W + u32(ix)];
          if (is_nan(v)) {
            found_nan = true;
          } else if (!have || v > m) {
            m = v;
            have = true;
          }
        }
      }
    }
    // Bit patterns built from a uniform (always 0) so that they are not constant expressions (WGSL rejects
    // constant infinities and NaNs).
    if (!have) {
      m = bitcast<f32>(0xff800000u | p._pad);
    }
    if (found_nan) {
      m = bitcast<f32>(0x7fc00000u | p._pad);
    }
    out[idx] = m;
  } else {
    // ATen: hend = min(hstart + k, H + pad); pool_size from the padded window; then clip to the image.
    let hs = y0;
    let ws = x0;
    let he = min(hs + i32(p.kh), i32(p.H + p.ph));
    let we = min(ws + i32(p.kw), i32(p.W + p.pw));
    let pool_size = (he - hs) * (we - ws);
    let hs_c = max(hs, 0);
    let ws_c = max(ws, 0);
    let he_c = min(he, i32(p.H));
    let we_c = min(we, i32(p.W));
    var s = 0.0;
    for (var iy = hs_c; iy < he_c; iy++) {
      for (var ix = ws_c; ix < we_c; ix++) {
        s += x[base + u32(iy) * p.W + u32(ix)];
      }
    }
    var div = f32(pool_size);
    if (p.divisor != 0u) {
      div = f32(p.divisor);
    } else if (p.include_pad == 0u) {
      div = f32((he_c - hs_c) * (we_c - ws_c));
    }
    out[idx] = s / div;
  }
}
