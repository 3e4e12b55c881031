// 2-D upsampling of x [planes, H, W] to [planes, OH, OW], one invocation per output element, PyTorch's CPU
// formulas in f32 (scale_h/scale_w are computed on the host as ATen does):
// MODE 0 nearest:  iy = min(floor(oy * scale_h), H - 1)   (scale = 1/scale_factor, or H/OH)
// MODE 1 bilinear: sy = align_corners ? oy * scale_h : max(scale_h * (oy + 0.5) - 0.5, 0);
//                  y0 = floor(sy), y1 = min(y0 + 1, H - 1), ly = sy - y0; the same along x; the output is
//                  (1-ly)((1-lx) x[y0,x0] + lx x[y0,x1]) + ly((1-lx) x[y1,x0] + lx x[y1,x1]).
// 64-wide workgroups over a folded 1-D grid.
#include "ops/common/index.wgsl"

override MODE : u32 = 0u;

struct Params {
  total : u32, H : u32, W : u32, OH : u32,
  OW : u32, align_corners : u32, scale_h : f32, scale_w : f32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

fn src_coord(o : u32, scale : f32) -> f32 {
  if (p.align_corners != 0u) {
    return scale * f32(o);
  }
  return max(scale * (f32(o) + 0.5) - 0.5, 0.0);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let idx = linear_workgroup(wid, nwg) * 64u + lid;
  if (idx >= p.total) {
    return;
  }
  let ox = idx % p.OW;
  let oy = (idx / p.OW) % p.OH;
  let base = (idx / (p.OW * p.OH)) * p.H * p.W;
  if (MODE == 0u) {
    let iy = min(u32(floor(f32(oy) * p.scale_h)), p.H - 1u);
    let ix = min(u32(floor(f32(ox) * p.scale_w)), p.W - 1u);
    out[idx] = x[base + iy * p.W + ix];
    return;
  }
  let sy = src_coord(oy, p.scale_h);
  let sx = src_coord(ox, p.scale_w);
  let y0 = min(u32(sy), p.H - 1u);
  let x0 = min(u32(sx), p.W - 1u);
  let y1 = min(y0 + 1u, p.H - 1u);
  let x1 = min(x0 + 1u, p.W - 1u);
  let ly = sy - f32(y0);
  let lx = sx - f32(x0);
  let top = (1.0 - lx) * x[base + y0 * p.W + x0] + lx * x[base + y0 * p.W + x1];
  let bot = (1.0 - lx) * x[base + y1 * p.W + x0] + lx * x[base + y1 * p.W + x1];
  out[idx] = (1.0 - ly) * top + ly * bot;
}
