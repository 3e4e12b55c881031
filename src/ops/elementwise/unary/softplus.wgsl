// aten.softplus (beta 1): log(1 + e^v), computed stably
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return max(v, 0.0) + log(1.0 + exp(-abs(v)));
}
