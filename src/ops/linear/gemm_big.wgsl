// Register-blocked GEMM for GPUs (the linear layers' prefill when the output has many tiles; tuning policy
// gemm_big_min_tiles): C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n), f32
// accumulation, operands addressed as in gemm_tiled_body.wgsl (GemmParams, ops/linear/gemm.h).
// Tiles: 128 (m) x 128 (n) outputs per workgroup of 256 invocations, each an 8 x 8 block held in 64 registers
// (rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx), so every k costs 4 vec4 loads from
// workgroup memory for 64 multiply-adds (the 4x4 kernel: 2 loads for 16). K is walked in slices of 16 staged
// in workgroup memory (2 x 8 KiB). Grid: x = ceil(N/128), y = ceil(M/128) (batches past the z limit folded
// into y, gemm_grid), z = batch. Out-of-range rows/cols/k are loaded as zeros and not written: any M, N, K.
// B loaders (override B_MODE): 0 f32 data bound as u32 words, B(z,k,n) = b[b_off + z*b_sb + k*b_sk + n*b_sn],
// consecutive invocations on consecutive k (weights [N, K]; override B_KFAST false: on consecutive n, for B
// [K, N] as aten.mm / addmm read it); 1 q4gsw weights (ops/linear/q4gsw.h), B(k,n) =
// W[n][k], b_sn = row stride in words, s_sn = scales row stride, requires K % 16 == 0 and group % 16 == 0;
// 2 ggml block-format weights (ops/linear/ggml_decode.wgsl, override WTYPE), B(k,n) = W[n][k] decoded from
// row n's raw blocks at byte n * b_sn (b_sn = row bytes), 8 consecutive k per decode (ggml_run8); requires
// K % block elements == 0 (linear_ggml checks it).
const TILE_M = 128u;  // outputs per workgroup (read by the host for the grid, gemm.h)
const TILE_N = 128u;
const KS = 16u;       // k per staged slice

#include "ops/linear/gemm_params.wgsl"
#include "ops/linear/gemm_epilogue_none.wgsl"

override B_MODE : u32 = 0u;
override B_KFAST : bool = true;  // B_MODE 0: stage B with consecutive invocations on consecutive k (else n)

fn ggml_word(i : u32) -> u32 { return b[i]; }
#include "ops/linear/ggml_decode.wgsl"

// [k][m/4] and [k][n/4]: a 4-vector holds 4 consecutive m (resp. n) of one k.
var<workgroup> As : array<vec4<f32>, 512>;
var<workgroup> Bs : array<vec4<f32>, 512>;

fn load_a_slice(k0 : u32, m0 : u32, lid : u32, a_base : u32) {
  for (var i = 0u; i < 8u; i++) {
    let e = lid + 256u * i;
    let mm = e / KS;
    let kk = e % KS;
    let gm = m0 + mm;
    let gk = k0 + kk;
    var v = 0.0;
    if (gm < p.M && gk < p.K) {
      v = a[a_base + gm * p.a_sm + gk * p.a_sk];
    }
    As[kk * 32u + mm / 4u][mm % 4u] = v;
  }
}

fn load_b_slice(k0 : u32, n0 : u32, lid : u32, b_base : u32) {
  if (B_MODE == 0u) {
    for (var i = 0u; i < 8u; i++) {
      let e = lid + 256u * i;
      var nn = e / KS;
      var kk = e % KS;
      if (!B_KFAST) {
        nn = e % TILE_N;
        kk = e / TILE_N;
      }
      let gn = n0 + nn;
      let gk = k0 + kk;
      var v = 0.0;
      if (gn < p.N && gk < p.K) {
        v = bitcast<f32>(b[b_base + gk * p.b_sk + gn * p.b_sn]);
      }
      Bs[kk * 32u + nn / 4u][nn % 4u] = v;
    }
  } else if (B_MODE == 2u) {
    let nn = lid / 2u;  // 128 rows of W x 2 runs of 8 k
    let kr = k0 + (lid % 2u) * 8u;
    let gn = n0 + nn;
    var v : array<f32, 8>;
    if (gn < p.N && kr < p.K) {
      let be = ggml_block_elems();
      v = ggml_run8(gn * p.b_sn + (kr / be) * ggml_block_bytes(), kr % be);
    }
    for (var j = 0u; j < 8u; j++) {
      let kk = (lid % 2u) * 8u + j;
      Bs[kk * 32u + nn / 4u][nn % 4u] = select(0.0, v[j], kr + j < p.K);
    }
  } else {
    let nn = lid / 2u;  // 128 rows of W x 2 words (16 k)
    let wi = lid % 2u;
    let gn = n0 + nn;
    var word = 0x88888888u;  // codes of 8 -> value 0
    var sc = 0.0;
    if (gn < p.N && k0 < p.K) {
      word = b[b_base + gn * p.b_sn + k0 / 8u + wi];
      sc = q4gsw_scale(gn * p.s_sn + k0 / p.group);
    }
    for (var j = 0u; j < 8u; j++) {
      let code = f32((word >> (4u * j)) & 15u);
      Bs[(wi * 8u + j) * 32u + nn / 4u][nn % 4u] = (code - 8.0) * sc;
    }
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let tile = gemm_tile(wid, nwg, TILE_M, TILE_N);
  let z = tile.z;
  if (z >= p.batch) {
    return;
  }
  let n0 = tile.n0;
  let m0 = tile.m0;
  let tx = lid % 16u;
  let ty = lid / 16u;
  var acc : array<vec4<f32>, 16>;  // [row 0..7][column half 0..1]
  for (var i = 0u; i < 16u; i++) {
    acc[i] = vec4<f32>(0.0);
  }
  let a_base = p.a_off + gemm_batch_offset(z, p.a_sb, p.a_sbo);
  let b_base = p.b_off + gemm_batch_offset(z, p.b_sb, p.b_sbo);
  for (var k0 = 0u; k0 < p.K; k0 += KS) {
    load_a_slice(k0, m0, lid, a_base);
    load_b_slice(k0, n0, lid, b_base);
    workgroupBarrier();
    for (var k = 0u; k < KS; k++) {
      let a0 = As[k * 32u + ty];
      let a1 = As[k * 32u + 16u + ty];
      let b0 = Bs[k * 32u + tx];
      let b1 = Bs[k * 32u + 16u + tx];
      acc[0] += a0.x * b0;
      acc[1] += a0.x * b1;
      acc[2] += a0.y * b0;
      acc[3] += a0.y * b1;
      acc[4] += a0.z * b0;
      acc[5] += a0.z * b1;
      acc[6] += a0.w * b0;
      acc[7] += a0.w * b1;
      acc[8] += a1.x * b0;
      acc[9] += a1.x * b1;
      acc[10] += a1.y * b0;
      acc[11] += a1.y * b1;
      acc[12] += a1.z * b0;
      acc[13] += a1.z * b1;
      acc[14] += a1.w * b0;
      acc[15] += a1.w * b1;
    }
    workgroupBarrier();
  }
  gemm_store_8x8(acc, m0, n0, tx, ty, p.c_off + gemm_batch_offset(z, p.c_sb, p.c_sbo), p.bias_off + z * p.bias_sb);
}
