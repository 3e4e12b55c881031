// Residual add fused with the next RMSNorm, one workgroup (256 invocations) per row of D elements:
//   sum[r, i] = x[r, i] + residual[r, i];   out[r, i] = sum[r, i] / sqrt(mean_i(sum[r, i]^2) + eps) * weight[i]
// Grid: 1-D over rows, folded (linear_workgroup).
#include "ops/common/index.wgsl"
#include "ops/norm/rms_common.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> residual : array<f32>;
@group(0) @binding(2) var<storage, read> weight : array<f32>;
@group(0) @binding(3) var<storage, read_write> sum : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  let base = row * p.D;
  var s = 0.0;
  for (var i = lid; i < p.D; i += 256u) {
    let v = x[base + i] + residual[base + i];
    sum[base + i] = v;
    s += v * v;
  }
  let inv = 1.0 / sqrt(block_sum(s, lid) / f32(p.D) + p.eps);
  for (var i = lid; i < p.D; i += 256u) {
    out[base + i] = (x[base + i] + residual[base + i]) * inv * weight[i];
  }
}
