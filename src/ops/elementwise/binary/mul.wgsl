// aten.mul.Tensor
#include "ops/elementwise/binary_body.wgsl"

fn binary_op(x : f32, y : f32) -> f32 {
  return x * y;
}
