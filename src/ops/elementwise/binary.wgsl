// out = a (op) b with NumPy broadcasting, f32. One invocation per output element.
// OP: 0 add (a + alpha*b), 1 sub (a - alpha*b), 2 mul, 3 div.
// BROADCAST false: a, b and out have the same shape (direct indexing); true: strided indexing where
// broadcast dims have stride 0. Dims and strides are innermost-last, rank <= 8.
#include "ops/common/index.wgsl"

override OP : u32 = 0u;
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

fn apply(x : f32, y : f32) -> f32 {
  switch OP {
    case 0u: { return x + p.alpha * y; }
    case 1u: { return x - p.alpha * y; }
    case 2u: { return x * y; }
    default: { return x / y; }
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  if (!BROADCAST) {
    out[i] = apply(a[i], b[i]);
    return;
  }
  var rem = i;
  var ai = 0u;
  var bi = 0u;
  for (var d = i32(p.rank) - 1; d >= 0; d--) {
    let k = u32(d);
    let size = p.out_dims[k / 4u][k % 4u];
    let c = rem % size;
    rem = rem / size;
    ai += c * p.a_strides[k / 4u][k % 4u];
    bi += c * p.b_strides[k / 4u][k % 4u];
  }
  out[i] = apply(a[ai], b[bi]);
}
