// The RMSNorm kernel body, one workgroup (WG invocations) per row of D elements:
//   out[r, i] = v(r, i) / sqrt(mean_i(v(r, i)^2) + eps) * weight[i]
// Sum of squares: strided per-invocation partial sums, then ops/common/reduce.wgsl. Grid: 1-D over rows,
// folded (linear_workgroup). The including kernel (rms_norm.wgsl, add_rms_norm.wgsl) declares the bindings
// weight, out and p (Params) and defines
//   fn row_value(i : u32) -> f32        element i (flat index) of the normalized input v
//   fn first_read(i : u32, v : f32)     called once per element on the first pass (e.g. to store v)
#include "ops/common/index.wgsl"
#include "ops/common/reduce.wgsl"

struct Params {
  rows : u32,
  D : u32,
  eps : f32,
  _pad : u32,
}

const WG = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  let base = row * p.D;
  var s = 0.0;
  for (var i = lid; i < p.D; i += WG) {
    let v = row_value(base + i);
    first_read(base + i, v);
    s += v * v;
  }
  let inv = 1.0 / sqrt(workgroup_sum(s, lid) / f32(p.D) + p.eps);
  for (var i = lid; i < p.D; i += WG) {
    out[base + i] = row_value(base + i) * inv * weight[i];
  }
}
