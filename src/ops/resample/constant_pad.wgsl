// Constant padding (and cropping, for negative pads) of a rank <= 8 tensor, one invocation per output
// element: out[c] = x[c - lo] if every coordinate c_k - lo_k lies in [0, in_k), else `value`.
// 32-bit words are moved as f32 values. 256-wide workgroups over a folded 1-D grid.
#include "ops/common/index.wgsl"

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

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  var rem = i;
  var si = 0u;
  var inside = true;
  for (var d = i32(p.rank) - 1; d >= 0; d--) {
    let k = u32(d);
    let size = p.out_dims[k / 4u][k % 4u];
    let c = i32(rem % size) - p.lo[k / 4u][k % 4u];
    rem = rem / size;
    if (c < 0 || c >= i32(p.in_dims[k / 4u][k % 4u])) {
      inside = false;
    } else {
      si += u32(c) * p.in_strides[k / 4u][k % 4u];
    }
  }
  if (inside) {
    out[i] = x[si];
  } else {
    out[i] = p.value;
  }
}
