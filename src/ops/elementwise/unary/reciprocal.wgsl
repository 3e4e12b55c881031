// aten.reciprocal: 1 / v
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return 1.0 / v;
}
