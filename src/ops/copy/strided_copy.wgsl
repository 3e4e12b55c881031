// Strided copy shared by the copy ops (view, slice, select, permute, cat), rank <= 8:
// for every coordinate c of `shape` (row-major, innermost last):
//   dst[dst_off + Σ c_k dst_strides[k]] = src[src_off + Σ c_k src_strides[k]].
// Elements are moved as 32-bit words (bit-exact for f32, i32, u32). One invocation per element; folded 1-D grid of 256-wide workgroups.
#include "ops/common/index.wgsl"

struct Params {
  n : u32,
  rank : u32,
  src_off : u32,
  dst_off : u32,
  shape : array<vec4<u32>, 2>,
  src_strides : array<vec4<u32>, 2>,
  dst_strides : array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> src : array<u32>;
@group(0) @binding(1) var<storage, read_write> dst : array<u32>;
@group(0) @binding(2) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  var rem = i;
  var si = p.src_off;
  var di = p.dst_off;
  for (var d = i32(p.rank) - 1; d >= 0; d--) {
    let k = u32(d);
    let size = p.shape[k / 4u][k % 4u];
    let c = rem % size;
    rem = rem / size;
    si += c * p.src_strides[k / 4u][k % 4u];
    di += c * p.dst_strides[k / 4u][k % 4u];
  }
  dst[di] = src[si];
}
