// aten.erf (|error| < 1.5e-7, erf_approx in the body)
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return erf_approx(v);
}
