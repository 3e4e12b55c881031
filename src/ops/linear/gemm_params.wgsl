// Parameters and bindings shared by the GEMM kernel bodies (gemm_tiled_body.wgsl, gemm_cpu_body.wgsl); GemmParams
// in gemm.h. a, b (f32 or q4gsw words as u32), scales (q4), bias, c, params.
struct Params {
  M : u32, N : u32, K : u32, batch : u32,
  a_off : u32, a_sb : u32, a_sm : u32, a_sk : u32,
  b_off : u32, b_sb : u32, b_sk : u32, b_sn : u32,
  c_off : u32, c_sb : u32, c_sm : u32, c_sn : u32,
  bias_off : u32, bias_sb : u32, bias_sm : u32, bias_sn : u32,
  has_bias : u32, group : u32, s_sn : u32, _pad0 : u32,
  alpha : f32, beta : f32, _pad1 : u32, _pad2 : u32,
}

@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> scales : array<f32>;
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;
