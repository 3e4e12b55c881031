// Register-tiled GEMM for CPU adapters (GemmConfig::Kind::Cpu): the body gemm_cpu_body.wgsl with the B loaders
// of the linear layers and mm/bmm/addmm/encoder SDPA:
// B_MODE 0: B(z,k,n) = bitcast<f32>(b[b_off + z*b_sb + k*b_sk + n*b_sn]) (one gather per k).
// B_MODE 1: B(k,n) = W[n][k] of a q4gsw weight (ops/linear/q4gsw.h): b = qweight words, row stride b_sn words,
//   scales row stride s_sn, group size `group`; one word per 8 k, decoded in registers; requires K % group == 0
//   and group % 8 == 0.
#include "ops/linear/gemm_cpu_body.wgsl"
#include "ops/linear/gemm_epilogue_none.wgsl"

override B_MODE : u32 = 0u;

var<private> b_col : u32;  // B_MODE 0: element offset of this column's k = 0
var<private> kw : u32;     // q4: next word index
var<private> ks : u32;     // q4: next scale index
var<private> sc : f32;     // q4: the group's scale
var<private> off : f32;    // q4: -8 * sc

fn b_begin(nc : u32, z : u32) {
  b_col = p.b_off + gemm_batch_offset(z, p.b_sb, p.b_sbo) + nc * p.b_sn;
  kw = p.b_off + nc * p.b_sn;
  ks = nc * p.s_sn;
}

fn q4_decode(word : u32, sh : vec4<u32>) -> vec4<f32> {
  return vec4<f32>(vec4<i32>((vec4<u32>(word) >> sh) & vec4<u32>(15u))) * sc + vec4<f32>(off);
}

fn load_b8(k0 : u32) -> array<vec4<f32>, 2> {
  if (B_MODE == 0u) {
    // Rows past K read a clamped (valid) element, then are zeroed.
    let klast = p.K - 1u;
    let kk0 = min(vec4<u32>(k0) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(klast));
    let kk1 = min(vec4<u32>(k0) + vec4<u32>(4u, 5u, 6u, 7u), vec4<u32>(klast));
    let o0 = b_col + kk0 * p.b_sk;
    let o1 = b_col + kk1 * p.b_sk;
    var b0 = bitcast<vec4<f32>>(vec4<u32>(b[o0.x], b[o0.y], b[o0.z], b[o0.w]));
    var b1 = bitcast<vec4<f32>>(vec4<u32>(b[o1.x], b[o1.y], b[o1.z], b[o1.w]));
    if (k0 + 8u > p.K) {
      b0 = select(vec4<f32>(0.0), b0, vec4<u32>(k0) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(p.K));
      b1 = select(vec4<f32>(0.0), b1, vec4<u32>(k0) + vec4<u32>(4u, 5u, 6u, 7u) < vec4<u32>(p.K));
    }
    return array<vec4<f32>, 2>(b0, b1);
  }
  if (k0 % p.group == 0u) {
    sc = q4gsw_scale(ks);
    off = -8.0 * sc;
    ks++;
  }
  let word = b[kw];
  kw++;
  return array<vec4<f32>, 2>(q4_decode(word, vec4<u32>(0u, 4u, 8u, 12u)), q4_decode(word, vec4<u32>(16u, 20u, 24u, 28u)));
}
