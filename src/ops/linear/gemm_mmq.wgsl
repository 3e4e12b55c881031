// Int8 prefill GEMM for GPUs with packed int8 dot products (MMQ-style, as llama.cpp's mul_mmq):
//   C[m, n] = alpha * sum_kb dA[m][kb] * dW[n][kb] * sum_{k in kb} qA[m][k] * qW[n][k]  (+ beta * bias[n])
// over 32-k blocks kb, with qA, dA the activations quantized per block by quantize_q8.wgsl (int8 and f32 scale)
// and qW, dW the weight's codes and block scale (q4gsw, ops/linear/q4gsw.h: qW = code - 8, dW the
// group's scale; G in {32, 64, 128}, so one scale per 32-k block). The block's integer sum is exact (8
// dot4I8Packed of 4 products each, |sum| <= 32 * 127 * 8 < 2^24, so its f32 conversion is exact too); the scales
// are applied once per block and output, then f32 accumulation over the blocks. The error against the f32
// product is therefore the activation rounding (quantize_q8.wgsl: <= dA / 2 per element, i.e. per output at most
// sum_kb dA[m][kb] / 2 * sum_{k in kb} |W[n][k]|) plus f32 accumulation.
// Tiles and the activation staging: gemm_mmq_body.wgsl. Nibbles are expanded to signed bytes once per
// workgroup on staging. Grid: x = ceil(N/TILE_N), y = ceil(M/TILE_M), z = 1 (batch 1: linear layers). Out-of-range
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

// Stages the weights of blocks kb0 .. kb0 + NB - 1 of rows n0 .. n0 + TILE_N - 1 (codes of 8, i.e. zeros, outside).
fn mmq_stage_b(kb0 : u32, n0 : u32, lid : u32) {
  let KB = p.K / 32u;
  for (var e = lid; e < TILE_N * NB * 2u; e += 256u) {
    let mm = e / (2u * NB);  // column of the tile
    let blk = (e / 2u) % NB;
    let hv = e % 2u;
    let kb = kb0 + blk;
    let j0 = blk * 8u + hv * 4u;
    // words 2 * hv, 2 * hv + 1 of row gn's block (16 codes -> 4 u32 of signed bytes)
    let gn = n0 + mm;
    var w0 = 0x88888888u;  // codes of 8 -> 0
    var w1 = 0x88888888u;
    if (gn < p.N && kb < KB) {
      let wi = gn * p.b_sn + kb * 4u + hv * 2u;
      w0 = b[wi];
      w1 = b[wi + 1u];
    }
    let col = mm / 4u;
    let lane = mm % 4u;
    let rs = TILE_N / 4u;
    Bs[(j0 + 0u) * rs + col][lane] = signed_codes(w0 & 0x0F0F0F0Fu);
    Bs[(j0 + 1u) * rs + col][lane] = signed_codes((w0 >> 4u) & 0x0F0F0F0Fu);
    Bs[(j0 + 2u) * rs + col][lane] = signed_codes(w1 & 0x0F0F0F0Fu);
    Bs[(j0 + 3u) * rs + col][lane] = signed_codes((w1 >> 4u) & 0x0F0F0F0Fu);
  }
  // scales: one per column and block
  for (var e = lid; e < TILE_N * NB; e += 256u) {
    let sn = e / NB;
    let sblk = e % NB;
    let kb = kb0 + sblk;
    let gn = n0 + sn;
    var sb = 0.0;
    if (gn < p.N && kb < KB) {
      sb = q4gsw_scale(gn * p.s_sn + (kb * 32u) / p.group);
    }
    Sb[sblk * (TILE_N / 4u) + sn / 4u][sn % 4u] = sb;
  }
}

fn mmq_block(acc : ptr<function, array<vec4<f32>, 16>>, blk : u32, tx : u32, ty : u32) {
  mmq_apply(acc, mmq_dot(blk * 8u, 8u, tx, ty), Sa[mmq_mi(blk, 0u, ty)], Sa[mmq_mi(blk, 1u, ty)],
            Sb[mmq_ni(blk, 0u, tx)], Sb[mmq_ni(blk, 1u, tx)]);
}
