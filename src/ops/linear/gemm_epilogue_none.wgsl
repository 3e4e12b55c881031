// The identity store hook of the GEMM bodies (gemm_params.wgsl's gemm_epilogue), for the plain GEMM kernels;
// the convolution GEMMs include ops/conv/conv_epilogue.wgsl instead.
fn gemm_epilogue(v : f32) -> f32 {
  return v;
}
