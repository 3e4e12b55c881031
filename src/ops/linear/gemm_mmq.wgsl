// Int8 prefill GEMM for GPUs with packed int8 dot products (MMQ-style, as llama.cpp's mul_mmq):
//   C[m, n] = alpha * sum_kb dA[m][kb] * dW[n][kb] * sum_{k in kb} qA[m][k] * qW[n][k]  (+ beta * bias[n])
// over 32-k blocks kb, with qA, dA the activations quantized per block by quantize_q8.wgsl (int8 and f32 scale)
// and qW, dW the weight's codes and block scale (q4gsw, ops/linear/q4gsw.h: qW = code - 8, dW the
// group's scale; G in {32, 64, 128}, so one scale per 32-k block). The block's integer sum is exact (8
// dot4I8Packed of 4 products each, |sum| <= 32 * 127 * 8 < 2^24, so its f32 conversion is exact too); the scales
// are applied once per block and output, then f32 accumulation over the blocks. The error against the f32
// product is therefore the activation rounding (quantize_q8.wgsl: <= dA / 2 per element, i.e. per output at most
// sum_kb dA[m][kb] / 2 * sum_{k in kb} |W[n][k]|) plus f32 accumulation.
// Tiles, the activation staging and the main loop: gemm_mmq_body.wgsl. Nibbles are expanded to signed bytes once
// per workgroup on staging (mmq_store_b). Grid: x = ceil(N/TILE_N), y = ceil(M/TILE_M), z = 1 (batch 1: linear layers). Out-of-range
// rows, columns and blocks are staged as zeros and not written: any M, N and K % 32 == 0.
// Bindings: 0 qA (u32 vec4s, quantize_q8's xq, row m at block m * K/32), 1 b (q4gsw words, row n at word
// n * b_sn), 2 scales (f16 pairs or f32, read through q4gsw_scale: group g of row n at n * s_sn + g), 3 bias, 4 c, 5 params (GemmParams; a_* unused,
// the activations are contiguous [M, K]), 6 dA (quantize_q8's xd: vec2(d, d * sum q) per block).
#include "ops/linear/gemm_common.wgsl"
#include "ops/linear/q4gsw_scale.wgsl"
#include "ops/linear/gemm_epilogue_none.wgsl"

@group(0) @binding(0) var<storage, read> qa : array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> scales : array<u32>;  // q4gsw_scale()
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;
@group(0) @binding(6) var<storage, read> da : array<vec2<f32>>;

#include "ops/linear/gemm_mmq_body.wgsl"

var<workgroup> Sb : array<vec4<f32>, SN_LEN>;  // [blk][n/4] weight scales

// 4 codes 0..15 in the low nibbles of the bytes of v -> the 4 signed bytes code - 8 (bit 3 of code ^ 8 marks a
// negative result, whose high nibble must then be all ones: 8 * 30 = 0xF0, no carry between bytes).
fn signed_codes(v : u32) -> u32 {
  let t = v ^ 0x08080808u;
  return t | ((t & 0x08080808u) * 30u);
}

// The weights of blocks kb0 .. kb0 + NB - 1 of rows n0 .. n0 + TILE_N - 1 between mmq_load_b and mmq_store_b
// (codes of 8, i.e. zeros, and scale 0 outside N and K): item i of each array is element lid + WG i of the
// staging loops (TILE_N * NB <= 2 WG).
struct MmqB {
  w : array<vec2<u32>, 4>,  // words 2 hv, 2 hv + 1 of column e / (2 NB), block (e / 2) % NB, hv = e % 2
  s : array<f32, 2>,        // scale of column e / NB, block e % NB
}

fn mmq_load_b(kb0 : u32, n0 : u32, lid : u32) -> MmqB {
  let KB = p.K / 32u;
  var r : MmqB;
  for (var i = 0u; i < 4u; i++) {
    let e = lid + WG * i;
    let gn = n0 + e / (2u * NB);
    let kb = kb0 + (e / 2u) % NB;
    r.w[i] = vec2<u32>(0x88888888u);  // codes of 8 -> 0
    if (e < TILE_N * NB * 2u && gn < p.N && kb < KB) {
      let wi = gn * p.b_sn + kb * 4u + (e % 2u) * 2u;
      r.w[i] = vec2<u32>(b[wi], b[wi + 1u]);
    }
  }
  for (var i = 0u; i < 2u; i++) {
    let e = lid + WG * i;
    let gn = n0 + e / NB;
    let kb = kb0 + e % NB;
    if (e < TILE_N * NB && gn < p.N && kb < KB) {
      r.s[i] = q4gsw_scale(gn * p.s_sn + (kb * 32u) / p.group);
    }
  }
  return r;
}

// Expands each word's nibbles to signed bytes (u32 j = 2w + parity: the codes of k = 8w + parity + {0, 2, 4, 6},
// quantize_q8's order) and writes them and the scales to Bs and Sb.
fn mmq_store_b(r : MmqB, lid : u32) {
  let rs = TILE_N / 4u;
  for (var i = 0u; i < 4u; i++) {
    let e = lid + WG * i;
    if (e < TILE_N * NB * 2u) {
      let mm = e / (2u * NB);  // column of the tile
      let j0 = ((e / 2u) % NB) * 8u + (e % 2u) * 4u;
      let col = mm / 4u;
      let lane = mm % 4u;
      let w0 = r.w[i].x;
      let w1 = r.w[i].y;
      Bs[(j0 + 0u) * rs + col][lane] = signed_codes(w0 & 0x0F0F0F0Fu);
      Bs[(j0 + 1u) * rs + col][lane] = signed_codes((w0 >> 4u) & 0x0F0F0F0Fu);
      Bs[(j0 + 2u) * rs + col][lane] = signed_codes(w1 & 0x0F0F0F0Fu);
      Bs[(j0 + 3u) * rs + col][lane] = signed_codes((w1 >> 4u) & 0x0F0F0F0Fu);
    }
  }
  for (var i = 0u; i < 2u; i++) {
    let e = lid + WG * i;
    if (e < TILE_N * NB) {
      let sn = e / NB;
      Sb[(e % NB) * (TILE_N / 4u) + sn / 4u][sn % 4u] = r.s[i];
    }
  }
}

fn mmq_block(acc : ptr<function, array<vec4<f32>, 16>>, blk : u32, tx : u32, ty : u32) {
  mmq_apply(acc, mmq_dot(blk * 8u, 8u, tx, ty), Sa[mmq_mi(blk, 0u, ty)], Sa[mmq_mi(blk, 1u, ty)],
            Sb[mmq_ni(blk, 0u, tx)], Sb[mmq_ni(blk, 1u, tx)]);
}
