// wgrt.hard_sigmoid: max(0, min(1, alpha * v + beta)), p0 = alpha, p1 = beta (ONNX HardSigmoid)
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return clamp(p.p0 * v + p.p1, 0.0, 1.0);
}
