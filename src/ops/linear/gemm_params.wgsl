// Bindings shared by the f32-A GEMM kernel bodies (gemm_tiled_body.wgsl, gemm_cpu_body.wgsl, gemm_big.wgsl);
// GemmParams in gemm.h. a, b (f32 or q4gsw words as u32), scales (q4, read through q4gsw_scale), bias, c, params.
#include "ops/linear/gemm_common.wgsl"
#include "ops/linear/q4gsw_scale.wgsl"

@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> scales : array<u32>;  // q4: q4gsw_scale()
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;
