// aten.gelu (approximate "none"): 0.5 x (1 + erf(x / sqrt 2))
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return 0.5 * v * (1.0 + erf_approx(v * 0.7071067811865476));
}
