// Parameters shared by the GEMV kernels (gemv_q4.wgsl, gemv_q4_i8.wgsl, gemv_q4_sg.wgsl, gemv_f32.wgsl); GemvParams in
// linear.cpp.
struct Params {
  N : u32,           // rows of W in this dispatch
  K : u32,
  group : u32,       // q4 group size (unused by f32)
  has_bias : u32,
  n_base : u32,      // first output column of this dispatch
  nwg : u32,         // workgroups (the grid may be folded and larger)
  out_stride : u32,  // elements between output rows (the full N); row m of x and out = workgroup_id.z
  eps : f32,         // fused RMSNorm (gemv_q4_fuse.wgsl NORM)
}
