// Parameter block shared by the convolution kernels (ConvParams in conv.cpp; keep in sync).
struct ConvParams {
  N : u32, C : u32, H : u32, W : u32,
  O : u32, OH : u32, OW : u32, groups : u32,
  kh : u32, kw : u32, sh : u32, sw : u32,
  ph : u32, pw : u32, dh : u32, dw : u32,
  cpg : u32, opg : u32, K : u32, has_bias : u32,
  tiles_n : u32, tiles_m : u32, total : u32, _pad : u32,
}
