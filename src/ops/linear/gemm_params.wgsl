// Parameters shared by the GEMM kernels (gemm.wgsl, gemm_cpu.wgsl); GemmParams in gemm.h.
struct Params {
  M : u32, N : u32, K : u32, batch : u32,
  a_off : u32, a_sb : u32, a_sm : u32, a_sk : u32,
  b_off : u32, b_sb : u32, b_sk : u32, b_sn : u32,
  c_off : u32, c_sb : u32, c_sm : u32, c_sn : u32,
  bias_off : u32, bias_sb : u32, bias_sm : u32, bias_sn : u32,
  has_bias : u32, group : u32, s_sn : u32, _pad0 : u32,
  alpha : f32, beta : f32, _pad1 : u32, _pad2 : u32,
}
