// Int8 prefill GEMM for ggml block-format weights (MMQ-style, as llama.cpp's mul_mmq), the block-format sibling
// of gemm_mmq.wgsl (tiles and activation staging shared: gemm_mmq_body.wgsl):
//   C[m, n] = alpha * sum_kb dA[m][kb] * (sum_h dW[n][kb][h] * sum_{k in half h} qA[m][k] * qW[n][k]
//                                         - mW[n][kb] * sum_{k in kb} qA[m][k])            (+ beta * bias[n])
// over 32-k sub-blocks kb, with qA, dA the activations quantized per 32-k block by quantize_q8.wgsl (ORDER 1:
// natural byte order) and each weight sub-block written as W[n][k] = dW[n][kb][h] * qW[n][k] - mW[n][kb]:
// qW its integer codes as signed bytes, dW its scale (one per 16-k half h for Q6_K, else the same for both
// halves), mW its minimum (Q4_K, Q5_K: dmin * m; Q4_1, Q5_1: -m; else 0). This is exactly
// sum_k W[n][k] * qA[m][k] * dA[m][kb] with W the format's dequantized values (ggml_decode.wgsl): the integer
// sums are exact (|sum| <= 32 * 127 * 63 < 2^24), so the error against the product of the dequantized weights
// with the dequantized int8 activations is f32 rounding of the scale products and the accumulation only; against
// the f32 x it adds the activation rounding (<= dA / 2 per element, quantize_q8.wgsl).
// WTYPE (override, ggml type id; linear_ggml.h ggml_mmq_type lists the same set): 2 Q4_0, 3 Q4_1, 6 Q5_0,
// 7 Q5_1, 8 Q8_0, 12 Q4_K, 13 Q5_K, 14 Q6_K. Grid: x = ceil(N/TILE_N), y = ceil(M/TILE_M), z = 1. Out-of-range rows,
// columns and sub-blocks are staged as zeros and not written: any M, N and K % block elements == 0.
// Bindings: 0 qA (quantize_q8's xq), 1 b (the raw blocks as u32 words, row n at byte n * b_sn), 2 bias, 3 c,
// 4 params (GemmParams: M, N, K, b_sn = row bytes, c/bias offsets and strides, has_bias; batch 1), 5 dA (xd).
#include "ops/linear/gemm_common.wgsl"
#include "ops/linear/gemm_epilogue_none.wgsl"

@group(0) @binding(0) var<storage, read> qa : array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> c : array<f32>;
@group(0) @binding(4) var<uniform> p : Params;
@group(0) @binding(5) var<storage, read> da : array<vec2<f32>>;

fn ggml_word(i : u32) -> u32 { return b[i]; }
#include "ops/linear/ggml_decode.wgsl"
#include "ops/linear/gemm_mmq_body.wgsl"

// [blk][n/4]: the weight scales of halves 0 and 1 and the minimum of each staged sub-block.
var<workgroup> Sd0 : array<vec4<f32>, SN_LEN>;
var<workgroup> Sd1 : array<vec4<f32>, SN_LEN>;
var<workgroup> Sm : array<vec4<f32>, SN_LEN>;

fn has_min() -> bool {
  return WTYPE == 3u || WTYPE == 7u || WTYPE == 12u || WTYPE == 13u;
}

// The u32 at byte o (o even; the fields of these formats sit at even offsets).
fn wu32(o : u32) -> u32 {
  let i = o >> 2u;
  if ((o & 2u) == 0u) {
    return b[i];
  }
  return (b[i] >> 16u) | (b[i + 1u] << 16u);
}

// Per byte: n-bit codes q (0 .. 2^n - 1) -> the signed bytes q - 2^(n-1): bit n-1 of q ^ 2^(n-1) (the bits of
// `sign`) marks a negative result, whose bits above must then be all ones: sign bit * mul = those bits (8 * 30 =
// 0xF0, 16 * 14 = 0xE0, 32 * 6 = 0xC0), no carry between bytes.
fn centered(q : u32, sign : u32, mul : u32) -> u32 {
  let t = q ^ sign;
  return t | ((t & sign) * mul);
}

// Bits 0..3 of x to bit 0 of bytes 0..3.
fn spread4(x : u32) -> u32 {
  return (x & 1u) | ((x & 2u) << 7u) | ((x & 4u) << 14u) | ((x & 8u) << 21u);
}

// Nibbles of the 32-element run at byte qs (element j < 16: low nibble of byte j, else high nibble of byte j - 16),
// u32 w of the natural order (elements 4w .. 4w + 3).
fn nib_word(qs : u32, w : u32) -> u32 {
  return (wu32(qs + 4u * (w & 3u)) >> (4u * (w >> 2u))) & 0x0F0F0F0Fu;
}

struct Sub {
  q : array<u32, 8>,  // 32 signed bytes, u32 w = elements 4w .. 4w + 3
  d0 : f32,           // scale of elements 0..15
  d1 : f32,           // scale of elements 16..31
  m : f32,            // minimum: W = d * q - m
}

// Sub-block sb (32 elements) of the block at byte `base`.
fn ggml_sub32(base : u32, sb : u32) -> Sub {
  var s : Sub;
  switch WTYPE {
    case 2u: {  // Q4_0: f16 d, u8 qs[16]
      for (var w = 0u; w < 8u; w++) { s.q[w] = centered(nib_word(base + 2u, w), 0x08080808u, 30u); }
      s.d0 = wf16(base);
    }
    case 3u: {  // Q4_1: f16 d, f16 m, u8 qs[16]
      for (var w = 0u; w < 8u; w++) { s.q[w] = nib_word(base + 4u, w); }
      s.d0 = wf16(base);
      s.m = -wf16(base + 2u);
    }
    case 6u, 7u: {  // Q5_0: f16 d, u32 qh, u8 qs[16]; Q5_1: f16 d, f16 m, u32 qh, u8 qs[16]
      let o = select(2u, 4u, WTYPE == 7u);
      let qh = wu32(base + o);
      for (var w = 0u; w < 8u; w++) {
        let q = nib_word(base + o + 4u, w) | (spread4((qh >> (4u * w)) & 15u) << 4u);
        s.q[w] = select(centered(q, 0x10101010u, 14u), q, WTYPE == 7u);
      }
      s.d0 = wf16(base);
      if (WTYPE == 7u) {
        s.m = -wf16(base + 2u);
      }
    }
    case 12u, 13u: {  // Q4_K: f16 d, f16 dmin, u8 scales[12], u8 qs[128]; Q5_K: ..., u8 qh[32], u8 qs[128]
      let hi = sb & 1u;
      let qs = (base + select(16u, 48u, WTYPE == 13u) + 32u * (sb / 2u)) >> 2u;  // 16-byte aligned rows
      for (var w = 0u; w < 8u; w++) {
        var q = (b[qs + w] >> (4u * hi)) & 0x0F0F0F0Fu;
        if (WTYPE == 13u) {
          q |= ((b[((base + 16u) >> 2u) + w] >> sb) & 0x01010101u) << 4u;
        }
        s.q[w] = q;
      }
      s.d0 = wf16(base) * k4_field(base, sb, false);
      s.m = wf16(base + 2u) * k4_field(base, sb, true);
    }
    case 14u: {  // Q6_K: u8 ql[128], u8 qh[64], i8 scales[16], f16 d
      let h = sb / 4u;
      let r = sb % 4u;
      let ql = base + 64u * h + 32u * (r & 1u);
      let qh = base + 128u + 32u * h;
      for (var w = 0u; w < 8u; w++) {
        let lo = (wu32(ql + 4u * w) >> (4u * (r >> 1u))) & 0x0F0F0F0Fu;
        let hb = (wu32(qh + 4u * w) >> (2u * r)) & 0x03030303u;
        s.q[w] = centered(lo | (hb << 4u), 0x20202020u, 6u);
      }
      let d = wf16(base + 208u);
      s.d0 = d * wi8(base + 192u + 8u * h + 2u * r);
      s.d1 = d * wi8(base + 193u + 8u * h + 2u * r);
      return s;
    }
    default: {  // Q8_0: f16 d, i8 qs[32]
      for (var w = 0u; w < 8u; w++) { s.q[w] = wu32(base + 2u + 4u * w); }
      s.d0 = wf16(base);
    }
  }
  s.d1 = s.d0;
  return s;
}

// The hooks of gemm_mmq_body.wgsl: sub-blocks kb0 .. kb0 + NB - 1 of columns n0 .. n0 + TILE_N - 1, one (column,
// sub-block) pair per invocation and item (column e / NB, sub-block e % NB of element e = lid + WG i; TILE_N * NB
// <= 2 WG), decoded on load (zeros outside N and K) and held as Subs until the store.
struct MmqB {
  s : array<Sub, 2>,
}

// Items per invocation: 1 where TILE_N * NB <= WG (every 256-invocation tile), else 2. A constant after override
// substitution, so the loops below unroll to what is needed and an unused second Sub holds no registers (with
// the bound 2 the 64x64 tile's decode kept both live: H200 run 23, 1B Q4_K_M pp2048 13,301 (run 22) -> 11,889; with
// this bound 14,000, pp512 15,241).
override B_ITEMS : u32 = (TILE_N * NB + WG - 1u) / WG;

fn mmq_load_b(kb0 : u32, n0 : u32, lid : u32) -> MmqB {
  var r : MmqB;
  for (var i = 0u; i < B_ITEMS; i++) {
    let e = lid + WG * i;
    let kb = kb0 + e % NB;
    let gn = n0 + e / NB;
    if (e < TILE_N * NB && gn < p.N && kb < p.K / 32u) {
      let spb = ggml_block_elems() / 32u;
      r.s[i] = ggml_sub32(gn * p.b_sn + (kb / spb) * ggml_block_bytes(), kb % spb);
    }
  }
  return r;
}

fn mmq_store_b(r : MmqB, lid : u32) {
  for (var i = 0u; i < B_ITEMS; i++) {
    let e = lid + WG * i;
    if (e < TILE_N * NB) {
      let nn = e / NB;
      let blk = e % NB;
      for (var w = 0u; w < 8u; w++) {
        Bs[(blk * 8u + w) * (TILE_N / 4u) + nn / 4u][nn % 4u] = r.s[i].q[w];
      }
      let k = blk * (TILE_N / 4u) + nn / 4u;
      Sd0[k][nn % 4u] = r.s[i].d0;
      Sd1[k][nn % 4u] = r.s[i].d1;
      Sm[k][nn % 4u] = r.s[i].m;
    }
  }
}

fn mmq_block(acc : ptr<function, array<vec4<f32>, 16>>, blk : u32, tx : u32, ty : u32) {
  let s0 = Sa[mmq_mi(blk, 0u, ty)];
  let s1 = Sa[mmq_mi(blk, 1u, ty)];
  let n0 = mmq_ni(blk, 0u, tx);
  let n1 = mmq_ni(blk, 1u, tx);
  if (WTYPE == 14u) {  // a scale per 16-k half
    mmq_apply(acc, mmq_dot(blk * 8u, 4u, tx, ty), s0, s1, Sd0[n0], Sd0[n1]);
    mmq_apply(acc, mmq_dot(blk * 8u + 4u, 4u, tx, ty), s0, s1, Sd1[n0], Sd1[n1]);
  } else {
    mmq_apply(acc, mmq_dot(blk * 8u, 8u, tx, ty), s0, s1, Sd0[n0], Sd0[n1]);
  }
  if (has_min()) {
    mmq_outer(acc, -Sy[mmq_mi(blk, 0u, ty)], -Sy[mmq_mi(blk, 1u, ty)], Sm[n0], Sm[n1]);
  }
}
