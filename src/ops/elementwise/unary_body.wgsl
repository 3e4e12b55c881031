// The elementwise unary kernel body: out[i] = unary_op(x[i]), f32, one invocation per element, 1-D folded grid.
// A unary op's kernel is a file of ops/elementwise/unary/ that includes this one and defines
//   fn unary_op(v : f32) -> f32
// (it may read the op's scalar parameters p.p0, p.p1; host side: ops/elementwise/unary.cpp).
#include "ops/common/index.wgsl"
#include "ops/common/sigmoid.wgsl"

struct Params {
  n : u32,
  p0 : f32,
  p1 : f32,
  _pad : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

const WG = 256u;

// erf with |error| < 1.5e-7 (Abramowitz & Stegun 7.1.26); WGSL has no erf builtin.
fn erf_approx(v : f32) -> f32 {
  let s = sign(v);
  let a = abs(v);
  let t = 1.0 / (1.0 + 0.3275911 * a);
  let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-a * a);
  return s * y;
}


@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * WG + lid;
  if (i < p.n) {
    out[i] = unary_op(x[i]);
  }
}
