// Batch norm with running statistics (inference), one invocation per element of x [N, C, *] (inner = prod(*)):
//   y = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c],   c = (i / inner) % C
// weight/bias applied only when has_w / has_b. 256-wide workgroups over a folded 1-D grid.
#include "ops/common/index.wgsl"

struct Params {
  n : u32, C : u32, inner : u32, has_w : u32,
  has_b : u32, eps : f32, _pad0 : u32, _pad1 : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> weight : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read> mean : array<f32>;
@group(0) @binding(4) var<storage, read> rvar : array<f32>;
@group(0) @binding(5) var<storage, read_write> out : array<f32>;
@group(0) @binding(6) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let c = (i / p.inner) % p.C;
  var y = (x[i] - mean[c]) / sqrt(rvar[c] + p.eps);
  if (p.has_w != 0u) {
    y *= weight[c];
  }
  if (p.has_b != 0u) {
    y += bias[c];
  }
  out[i] = y;
}
