// aten.gelu (approximate "tanh"): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  let u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
  return 0.5 * v * (1.0 + tanh(clamp(u, -15.0, 15.0)));
}
