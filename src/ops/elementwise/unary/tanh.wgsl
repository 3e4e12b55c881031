// aten.tanh (argument clamped to +-15, where tanh is +-1 in f32)
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return tanh(clamp(v, -15.0, 15.0));
}
