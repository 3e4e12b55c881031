// aten.leaky_relu: p0 = negative_slope
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return select(v * p.p0, v, v >= 0.0);
}
