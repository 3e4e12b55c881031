// Tiled GEMM core: C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n), f32 accumulation.
// Shared by aten.linear (prefill route), et_vk.linear_q4gsw (prefill route), mm/bmm/addmm and the encoder SDPA:
// every operand is addressed through offsets and element strides in the uniform (see GemmParams in gemm.h).
// This is the GPU kernel (GemmConfig::Kind::Tiled); CPU adapters get gemm_cpu.wgsl (gemm.h has the rule).
//
// Tiles: 64 (m) x 64 (n) outputs per workgroup of 256 invocations, each a 4x4 block; K is walked in slices
// of 32 staged in workgroup memory (16 KiB). Grid: x = ceil(N/64), y = ceil(M/64), z = batch.
// Out-of-range rows/cols/k of a tile are loaded as zeros and not written, so any M, N, K works.
// B_MODE 0: B(z,k,n) = bitcast<f32>(b[b_off + z*b_sb + k*b_sk + n*b_sn]) (f32 data bound as u32 words).
//   B_KFAST true stages B with consecutive invocations on consecutive k (weights [N, K]), else on n ([K, N]).
// B_MODE 1: B(k,n) = W[n][k] of a q4gsw weight (ops/linear/q4gsw.h): b = qweight words, row stride b_sn
//   words, scales row stride s_sn, group size `group`; requires K % 32 == 0 (so one scale per 32-k slice).

const TILE_M = 64u;  // outputs per workgroup (read by the host for the grid, gemm.h)
const TILE_N = 64u;

override B_MODE : u32 = 0u;
override B_KFAST : bool = true;

#include "ops/linear/gemm_params.wgsl"

@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> scales : array<f32>;
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

// [k][m/4] and [k][n/4]: a 4-vector holds 4 consecutive m (resp. n) of one k.
var<workgroup> As : array<vec4<f32>, 512>;
var<workgroup> Bs : array<vec4<f32>, 512>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let n0 = wid.x * TILE_N;
  let m0 = wid.y * TILE_M;
  let z = wid.z;
  let tx = lid % 16u;
  let ty = lid / 16u;
  var acc : array<vec4<f32>, 4>;
  for (var i = 0u; i < 4u; i++) {
    acc[i] = vec4<f32>(0.0);
  }
  let a_base = p.a_off + z * p.a_sb;
  let b_base = p.b_off + z * p.b_sb;
  for (var k0 = 0u; k0 < p.K; k0 += 32u) {
    for (var i = 0u; i < 8u; i++) {
      let e = lid + 256u * i;
      let mm = e / 32u;
      let kk = e % 32u;
      let gm = m0 + mm;
      let gk = k0 + kk;
      var v = 0.0;
      if (gm < p.M && gk < p.K) {
        v = a[a_base + gm * p.a_sm + gk * p.a_sk];
      }
      As[kk * 16u + mm / 4u][mm % 4u] = v;
    }
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
        sc = scales[gn * p.s_sn + k0 / p.group];
      }
      for (var j = 0u; j < 8u; j++) {
        let code = f32((word >> (4u * j)) & 15u);
        Bs[(wi * 8u + j) * 16u + nn / 4u][nn % 4u] = (code - 8.0) * sc;
      }
    }
    workgroupBarrier();
    for (var k = 0u; k < 32u; k++) {
      let av = As[k * 16u + ty];
      let bv = Bs[k * 16u + tx];
      acc[0] += av.x * bv;
      acc[1] += av.y * bv;
      acc[2] += av.z * bv;
      acc[3] += av.w * bv;
    }
    workgroupBarrier();
  }
  let c_base = p.c_off + z * p.c_sb;
  let bias_base = p.bias_off + z * p.bias_sb;
  for (var i = 0u; i < 4u; i++) {
    let gm = m0 + ty * 4u + i;
    if (gm >= p.M) {
      break;
    }
    for (var j = 0u; j < 4u; j++) {
      let gn = n0 + tx * 4u + j;
      if (gn < p.N) {
        var v = p.alpha * acc[i][j];
        if (p.has_bias != 0u) {
          v += p.beta * bias[bias_base + gm * p.bias_sm + gn * p.bias_sn];
        }
        c[c_base + gm * p.c_sm + gn * p.c_sn] = v;
      }
    }
  }
}
