// wgrt.softcap: p0 * tanh(x / p0) (p0 > 0; the tanh argument clamped to +-15, where tanh is +-1 in f32)
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return p.p0 * tanh(clamp(v / p.p0, -15.0, 15.0));
}
