// Tiled GEMM (GPUs; GemmConfig::Kind::Tiled, CPU adapters get gemm_cpu.wgsl, gemm.h has the rule): the body
// gemm_tiled_body.wgsl with the B loaders of the linear layers and mm/bmm/addmm/encoder SDPA:
// B_MODE 0: B(z,k,n) = bitcast<f32>(b[b_off + z*b_sb + k*b_sk + n*b_sn]) (f32 data bound as u32 words).
//   B_KFAST true stages B with consecutive invocations on consecutive k (weights [N, K]), else on n ([K, N]).
// B_MODE 1: B(k,n) = W[n][k] of a q4gsw weight (ops/linear/q4gsw.h): b = qweight words, row stride b_sn
//   words, scales row stride s_sn, group size `group`; requires K % 32 == 0 (so one scale per 32-k slice).
#include "ops/linear/gemm_tiled_body.wgsl"
#include "ops/linear/gemm_epilogue_none.wgsl"

override B_MODE : u32 = 0u;
override B_KFAST : bool = true;

fn load_b_slice(k0 : u32, n0 : u32, lid : u32, b_base : u32) {
  if (B_MODE == 0u) {
    for (var i = 0u; i < 8u; i++) {
      let e = lid + 256u * i;
      var nn = e / 32u;
      var kk = e % 32u;
      if (!B_KFAST) {
        kk = e / 64u;
        nn = e % 64u;
      }
      let gn = n0 + nn;
      let gk = k0 + kk;
      var v = 0.0;
      if (gn < p.N && gk < p.K) {
        v = bitcast<f32>(b[b_base + gk * p.b_sk + gn * p.b_sn]);
      }
      Bs[kk * 16u + nn / 4u][nn % 4u] = v;
    }
  } else {
    let nn = lid / 4u;
    let wi = lid % 4u;
    let gn = n0 + nn;
    var word = 0x88888888u;  // codes of 8 -> value 0
    var sc = 0.0;
    if (gn < p.N) {
      word = b[b_base + gn * p.b_sn + k0 / 8u + wi];
      sc = q4gsw_scale(gn * p.s_sn + k0 / p.group);
    }
    for (var j = 0u; j < 8u; j++) {
      let code = f32((word >> (4u * j)) & 15u);
      Bs[(wi * 8u + j) * 16u + nn / 4u][nn % 4u] = (code - 8.0) * sc;
    }
  }
}
