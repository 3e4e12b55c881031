// Bindings shared by the q4gsw GEMV kernels (gemv_q4.wgsl, gemv_q4_i8.wgsl, gemv_q4_sg.wgsl); the host side is
// build_linear in linear.cpp. x [M, K] f32 as vec4, qw the q4gsw codes [N, K / 8] u32 as vec4 (ops/linear/q4gsw.h),
// scales [N, K / G] f16 pairs or f32 (read by q4gsw_scale, ops/linear/q4gsw_scale.wgsl), bias [N] (read only when
// p.has_bias), out [M, out_stride] f32; nw / res only for the fusions of gemv_q4_fuse.wgsl (any tensor otherwise).
#include "ops/linear/gemv_params.wgsl"
#include "ops/linear/q4gsw_scale.wgsl"

@group(0) @binding(0) var<storage, read> x : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> qw : array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales : array<u32>;
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;
@group(0) @binding(6) var<storage, read> nw : array<vec4<f32>>;  // fused RMSNorm weight [K] (gemv_q4_fuse.wgsl)
@group(0) @binding(7) var<storage, read> res : array<f32>;       // fused residual [M, out_stride]

var<private> m_row : u32;  // row of x / out (M > 1 runs one grid layer per row)
