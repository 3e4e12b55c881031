// RMSNorm (et_vk.rms_norm): out[r, i] = x[r, i] / sqrt(mean_i(x[r, i]^2) + eps) * weight[i] (rms_norm_body.wgsl).
#include "ops/norm/rms_norm_body.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> weight : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@group(0) @binding(3) var<uniform> p : Params;

fn row_value(i : u32) -> f32 {
  return x[i];
}

fn first_read(i : u32, v : f32) {}
