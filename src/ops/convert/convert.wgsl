// Elementwise dtype conversion of 32-bit words, one invocation per element:
// MODE 0: bit copy (same dtype); 1: f32 -> i32 (truncation toward zero; WGSL clamps out-of-range values to
// the i32 range, NaN gives an unspecified value); 2: i32 -> f32 (round to nearest).
// 256-wide workgroups over a folded 1-D grid.
#include "ops/common/index.wgsl"

override MODE : u32 = 0u;

struct Params {
  n : u32, _p0 : u32, _p1 : u32, _p2 : u32,
}

@group(0) @binding(0) var<storage, read> x : array<u32>;
@group(0) @binding(1) var<storage, read_write> out : array<u32>;
@group(0) @binding(2) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let v = x[i];
  if (MODE == 1u) {
    out[i] = bitcast<u32>(i32(bitcast<f32>(v)));
  } else if (MODE == 2u) {
    out[i] = bitcast<u32>(f32(bitcast<i32>(v)));
  } else {
    out[i] = v;
  }
}
