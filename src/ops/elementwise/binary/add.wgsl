// aten.add.Tensor: a + alpha * b
#include "ops/elementwise/binary_body.wgsl"

fn binary_op(x : f32, y : f32) -> f32 {
  return x + p.alpha * y;
}
