// aten.pow.Tensor_Tensor: x^y; a negative x with an integral y gives the signed power (WGSL pow is
// undefined for x < 0); x^0 = 1
#include "ops/common/nan.wgsl"
#include "ops/elementwise/binary_body.wgsl"

fn binary_op(x : f32, y : f32) -> f32 {
  if (y == 0.0) {
    return 1.0;
  }
  if (is_nan(x) || is_nan(y)) {
    return x + y;
  }
  if (x == 0.0) {
    return select(1.0 / abs(x), 0.0, y > 0.0);  // +inf for y < 0 (computed at run time)
  }
  let r = pow(abs(x), y);
  if (x < 0.0) {
    if (y != floor(y)) {
      return nan_f32(p.n & 0u);
    }
    if (abs(y) < 16777216.0 && (i32(abs(y)) & 1) == 1) {
      return -r;
    }
  }
  return r;
}
