// Residual add fused with the next RMSNorm (rms_norm_body.wgsl with v = x + residual):
//   sum[r, i] = x[r, i] + residual[r, i];   out[r, i] = sum[r, i] / sqrt(mean_i(sum[r, i]^2) + eps) * weight[i]
#include "ops/norm/rms_norm_body.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> residual : array<f32>;
@group(0) @binding(2) var<storage, read> weight : array<f32>;
@group(0) @binding(3) var<storage, read_write> sum : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

fn row_value(i : u32) -> f32 {
  return x[i] + residual[i];
}

fn first_read(i : u32, v : f32) {
  sum[i] = v;
}
