// Constant padding (and cropping, for negative pads) of a rank <= 8 tensor, one invocation per output
// element: out[c] = x[c - lo] if every coordinate c_k - lo_k lies in [0, in_k), else `value`.
// 32-bit words are moved as f32 values. 256-wide workgroups over a folded 1-D grid.
#include "ops/common/index.wgsl"
#include "ops/common/strided_index.wgsl"

struct Params {
  n : u32, rank : u32, value : f32, _pad : u32,
  out_dims : array<vec4<u32>, 2>,
  in_dims : array<vec4<u32>, 2>,
  lo : array<vec4<i32>, 2>,
  in_strides : array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

const WG = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * WG + lid;
  if (i >= p.n) {
    return;
  }
  let co = unravel(i, p.out_dims, p.rank);
  var si = 0u;
  var inside = true;
  for (var k = 0u; k < p.rank; k++) {
    let c = i32(co[k]) - p.lo[k / 4u][k % 4u];
    if (c < 0 || c >= i32(dim_at(p.in_dims, k))) {
      inside = false;
    } else {
      si += u32(c) * dim_at(p.in_strides, k);
    }
  }
  if (inside) {
    out[i] = x[si];
  } else {
    out[i] = p.value;
  }
}
