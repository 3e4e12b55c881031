// wgrt.softsign: v / (1 + |v|)
#include "ops/elementwise/unary_body.wgsl"

fn unary_op(v : f32) -> f32 {
  return v / (1.0 + abs(v));
}
