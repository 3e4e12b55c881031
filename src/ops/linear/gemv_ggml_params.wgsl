// Parameters of the block-format GEMV kernels (gemv_ggml.wgsl, gemv_kq.wgsl); Params in linear_ggml.cpp.
struct Params {
  N : u32,           // rows of W in this dispatch
  K : u32,
  has_bias : u32,
  n_base : u32,      // first output column of this dispatch
  nwg : u32,         // workgroups (the grid may be folded and larger)
  out_stride : u32,  // elements between output rows (the full N)
  row_bytes : u32,   // bytes per row of W (K / block elements * block bytes)
  M : u32,           // rows of x
  eps : f32,         // the fused RMSNorm's epsilon (gemv_kq.wgsl NORM 1)
  // gemv_kq.wgsl, a stack of two weight types in one dispatch (WTYPE2): rows n_split .. N - 1 of this dispatch are
  // WTYPE2's, row_bytes2 bytes each from byte off2 of w, taken by workgroups wg_split and on. One type: wg_split
  // 0xffffffff (gemv_ggml.wgsl ignores these).
  n_split : u32,
  wg_split : u32,
  off2 : u32,
  row_bytes2 : u32,
}
