// aten.clamp: p0 = min, p1 = max (+-inf when None)
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return min(max(v, p.p0), p.p1);
}
