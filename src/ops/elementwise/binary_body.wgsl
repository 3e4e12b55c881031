// The elementwise binary kernel body: out = binary_op(a, b) with NumPy broadcasting, f32, one invocation per
// output element. A binary op's kernel is a file of ops/elementwise/binary/ that includes this one and defines
//   fn binary_op(x : f32, y : f32) -> f32
// (it may read p.alpha; host side: ops/elementwise/binary.cpp).
// BROADCAST false: a, b and out have the same shape (direct indexing); true: strided indexing where broadcast
// dims have stride 0. Dims and strides are innermost-last, rank <= 8.
#include "ops/common/index.wgsl"
#include "ops/common/strided_index.wgsl"

override BROADCAST : bool = true;

struct Params {
  n : u32,
  rank : u32,
  alpha : f32,
  _pad : u32,
  out_dims : array<vec4<u32>, 2>,
  a_strides : array<vec4<u32>, 2>,
  b_strides : array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@group(0) @binding(3) var<uniform> p : Params;

const WG = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * WG + lid;
  if (i >= p.n) {
    return;
  }
  if (!BROADCAST) {
    out[i] = binary_op(a[i], b[i]);
    return;
  }
  // Both offsets in one pass over the (host-collapsed) dims, innermost first, without a coordinate array.
  var rem = i;
  var oa = 0u;
  var ob = 0u;
  for (var d = i32(p.rank) - 1; d >= 0; d--) {
    let k = u32(d);
    let size = dim_at(p.out_dims, k);
    let c = rem % size;
    rem = rem / size;
    oa += c * dim_at(p.a_strides, k);
    ob += c * dim_at(p.b_strides, k);
  }
  out[i] = binary_op(a[oa], b[ob]);
}
