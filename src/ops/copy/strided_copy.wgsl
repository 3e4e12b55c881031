// Strided copy shared by the copy ops (view, slice, select, permute, cat), rank <= 8:
// for every coordinate c of `shape` (row-major, innermost last):
//   dst[dst_off + Σ c_k dst_strides[k]] = src[src_off + Σ c_k src_strides[k]].
// Elements are moved as 32-bit words (bit-exact for f32, i32, u32). One invocation per element; folded 1-D grid of 256-wide workgroups.
#include "ops/common/index.wgsl"
#include "ops/common/strided_index.wgsl"

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

const WG = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * WG + lid;
  if (i >= p.n) {
    return;
  }
  let c = unravel(i, p.shape, p.rank);
  dst[p.dst_off + offset_of(c, p.dst_strides, p.rank)] = src[p.src_off + offset_of(c, p.src_strides, p.rank)];
}
