// aten.maximum: NaN if either is NaN
#include "ops/common/nan.wgsl"
#include "ops/elementwise/binary_body.wgsl"

fn binary_op(x : f32, y : f32) -> f32 {
  if (is_nan(x)) {
    return x;
  }
  if (is_nan(y)) {
    return y;
  }
  return max(x, y);
}
