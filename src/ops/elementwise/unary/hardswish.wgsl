// aten.hardswish: x * relu6(x + 3) / 6
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
}
