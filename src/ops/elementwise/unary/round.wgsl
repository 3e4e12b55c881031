// aten.round: to nearest, ties to even
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return round(v);
}
