// The logistic function 1 / (1 + exp(-v)), stable for large |v| (exp of a non-positive number only); shared by
// the unary kernels (elementwise/unary_body.wgsl) and the convolution epilogue (conv/conv_epilogue.wgsl).
fn sigmoid(v : f32) -> f32 {
  if (v >= 0.0) {
    return 1.0 / (1.0 + exp(-v));
  }
  let e = exp(v);
  return e / (1.0 + e);
}
