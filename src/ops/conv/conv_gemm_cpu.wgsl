// Convolution with groups == 1 as an implicit-im2col GEMM on CPU adapters: the register-tiled GEMM body
// (ops/linear/gemm_cpu_body.wgsl) with B gathered from x per output pixel (see conv_gemm.wgsl for the
// operation and operands; conv_im2col.wgsl for the gather).
#include "ops/linear/gemm_cpu_body.wgsl"
#include "ops/conv/conv_im2col.wgsl"
#include "ops/conv/conv_epilogue.wgsl"

var<private> b_base : u32;   // this image's offset in x
var<private> px : vec2<i32>;  // this column's window origin

fn b_begin(nc : u32, z : u32) {
  b_base = p.b_off + z * p.b_sb;
  px = im2col_pixel(nc);
}

fn load_b8(k0 : u32) -> array<vec4<f32>, 2> {
  var v : array<f32, 8>;
  for (var j = 0u; j < 8u; j++) {
    if (k0 + j < p.K) {
      v[j] = im2col(b_base, px, k0 + j);
    }
  }
  return array<vec4<f32>, 2>(vec4<f32>(v[0], v[1], v[2], v[3]), vec4<f32>(v[4], v[5], v[6], v[7]));
}
