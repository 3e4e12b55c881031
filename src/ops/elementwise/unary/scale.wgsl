// wgrt.scale: x * p0
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return v * p.p0;
}
