// aten.sign: -1, 0 or 1
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return sign(v);
}
