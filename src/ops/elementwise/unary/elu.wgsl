// aten.elu: v > 0 ? v : alpha * (e^v - 1), p0 = alpha
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return select(p.p0 * (exp(v) - 1.0), v, v > 0.0);
}
