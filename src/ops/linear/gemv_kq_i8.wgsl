// The int8-activation chunk bodies of gemv_kq.wgsl (overrides XQ 1 / 2; included by it, which declares w, w4,
// rbase, acc, xoff, MB, RPT and the byte helpers; the chunks take their weight type wt): x quantized per 32-k block as quantize_q8.wgsl does with
// ORDER 1 (natural byte order: u32 j of a block holds k = 4j .. 4j + 3; scale d and d * sum q per block), and every 4
// weight codes of a sub-block meet the 4 matching int8 activations in one dot4I8Packed (llama.cpp's
// mul_mat_vecq idea), instead of 4 code -> f32 conversions, a scale FMA and 4 FMAs per row of x.
// XQ 1: the blocks come from a quantize_q8.wgsl dispatch before this one (bindings 7, 8). XQ 2: each workgroup
// quantizes the layer's MB rows of x itself into workgroup memory (stage_i8, XB = K / 32 blocks per row: 40 bytes
// per block and row), after the fused RMSNorm where NORM 1 (so the norm stays inside this dispatch).
// Per 32-k block b of x (d_b, s_b = d_b * sum_k q_k) and a weight sub-block written W[k] = dW * c_k + mW (c_k its
// integer codes as bytes: unsigned 0..31 where the format has a minimum or an offset, centered signed -32..31
// for Q6_K, signed for Q8_0):
//   sum_{k in b} W[k] * d_b q_k = dW * d_b * I + mW * s_b,   I = sum_k c_k q_k (exact i32: |I| <= 32 * 127 * 63)
// with mW = -dmin * m (Q4_K, Q5_K), m (Q4_1), -16 d (Q5_0: codes 0..31), 0 (Q8_0, Q6_K). Q6_K's 16-element runs
// have their own scale each: I is summed per run (half a block of x, one d_b).
// Values: exactly the dequantized weights times the dequantized int8 x, up to f32 rounding of the scale products
// and the accumulation order; against the f32 x the activation rounding adds at most d_b / 2 per element
// (quantize_q8.wgsl), i.e. sum over blocks of d_b / 2 * sum_{k in b} |W[k]| per output.
#include "ops/linear/quantize_q8_block.wgsl"

@group(0) @binding(7) var<storage, read> xq8 : array<vec4<u32>>;  // XQ 1: [M * K / 32][2] (quantize_q8 xq)
@group(0) @binding(8) var<storage, read> xd8 : array<vec2<f32>>;  // XQ 1: [M * K / 32] (d, d * sum q)

// Per byte: n-bit codes q -> the signed bytes q - 2^(n-1) (as gemm_mmq_ggml.wgsl's centered: bit n-1 of
// q ^ 2^(n-1) marks a negative result, whose upper bits sign * mul then sets; no carry between bytes).
fn i8_centered(q : u32, sign : u32, mul : u32) -> u32 {
  let t = q ^ sign;
  return t | ((t & sign) * mul);
}

// Bits 0..3 of v to bit 0 of bytes 0..3.
fn i8_spread4(v : u32) -> u32 {
  return (v & 1u) | ((v & 2u) << 7u) | ((v & 4u) << 14u) | ((v & 8u) << 21u);
}

override XB : u32 = 1u;                      // XQ 2: K / 32
override XS : u32 = max(1u, XQ / 2u * MB * XB);  // XQ 2: staged blocks (MB * XB; else 1)
var<workgroup> xs_q : array<vec4<u32>, 2u * XS>;  // XQ 2: [m][block][2], as quantize_q8's xq
var<workgroup> xs_d : array<vec2<f32>, XS>;       // XQ 2: [m][block], as quantize_q8's xd

// XQ 2: quantizes row m_row of x (as gemv_x4 reads it, normalized where NORM 1) into slot m, one invocation per
// 32-k block, exactly as quantize_q8.wgsl does (quantize_q8_block.wgsl).
fn stage_i8(lid : u32, m : u32) {
  for (var b = lid; b < XB; b += TK * TR) {
    var v : array<vec4<f32>, 8>;
    for (var i = 0u; i < 8u; i++) {
      v[i] = gemv_x4(8u * b + i);
    }
    let q = q8_block(v, 1u);
    let s = m * XB + b;
    xs_q[2u * s] = vec4<u32>(q.words[0], q.words[1], q.words[2], q.words[3]);
    xs_q[2u * s + 1u] = vec4<u32>(q.words[4], q.words[5], q.words[6], q.words[7]);
    xs_d[s] = q.s;
  }
}

// Block index of x's 32-k block kb in the layer's row m, and the block's words / scales.
fn xblock(m : u32, kb : u32) -> u32 {
  if (XQ == 2u) {
    return m * XB + kb;
  }
  return xoff[m] / 8u + kb;
}
fn xq_at(i : u32) -> vec4<u32> {
  if (XQ == 2u) {
    return xs_q[i];
  }
  return xq8[i];
}
fn xd_at(b : u32) -> vec2<f32> {
  if (XQ == 2u) {
    return xs_d[b];
  }
  return xd8[b];
}

// I = sum of the 8 words' byte products with block xb of x.
fn dot32_i8(q : array<u32, 8>, xb : u32) -> i32 {
  let a = xq_at(2u * xb);
  let b = xq_at(2u * xb + 1u);
  return dot4I8Packed(q[0], a.x) + dot4I8Packed(q[1], a.y) + dot4I8Packed(q[2], a.z) + dot4I8Packed(q[3], a.w) +
         dot4I8Packed(q[4], b.x) + dot4I8Packed(q[5], b.y) + dot4I8Packed(q[6], b.z) + dot4I8Packed(q[7], b.w);
}

// Q4_K / Q5_K chunk c (sub-blocks 2c, 2c + 1; layout as chunk_k45) of the block at byte boff, kb the row's x block
// of sub-block 2c.
fn chunk_k45_i8(wt : u32, boff : u32, c : u32, kb : u32) {
  let q5 = wt == 13u;
  let qv = select(1u, 3u, q5) + 2u * c;  // vec4 of the chunk's first code word (w4: gemv_kq.wgsl binding 9)
  for (var i = 0u; i < RPT; i++) {
    let vi = (rbase[i] + boff) >> 4u;  // the block's header: d, dmin | scales[0..11]
    let hd = w4[vi];
    let dd = unpack2x16float(hd.x);
    let lo = k4_scale_min(hd.yzw, 2u * c, dd);
    let hi = k4_scale_min(hd.yzw, 2u * c + 1u, dd);
    let qa = w4[vi + qv];
    let qb = w4[vi + qv + 1u];
    var qw = array<u32, 8>(qa.x, qa.y, qa.z, qa.w, qb.x, qb.y, qb.z, qb.w);
    var hw : array<u32, 8>;
    if (q5) {
      let ha = w4[vi + 1u];
      let hb = w4[vi + 2u];
      hw = array<u32, 8>(ha.x, ha.y, ha.z, ha.w, hb.x, hb.y, hb.z, hb.w);
    }
    var ql : array<u32, 8>;
    var qh : array<u32, 8>;
    for (var k = 0u; k < 8u; k++) {
      let q = qw[k];
      ql[k] = q & 0x0F0F0F0Fu;
      qh[k] = (q >> 4u) & 0x0F0F0F0Fu;
      if (q5) {
        let h = hw[k] >> (2u * c);
        ql[k] |= (h & 0x01010101u) << 4u;
        qh[k] |= (h & 0x02020202u) << 3u;
      }
    }
    for (var m = 0u; m < MB; m++) {
      let xb = xblock(m, kb);
      let dl = xd_at(xb);
      let dh = xd_at(xb + 1u);
      acc[MB * i + m] += lo.x * dl.x * f32(dot32_i8(ql, xb)) - lo.y * dl.y + hi.x * dh.x * f32(dot32_i8(qh, xb + 1u)) -
                         hi.y * dh.y;
    }
  }
}

// Q6_K chunk c = (h, lh) (layout as chunk_q6k) of the block at byte boff, kb0 the row's x block of the block's
// first element: run r is words 4 lh .. 4 lh + 3 of x block kb0 + 4 h + r.
// The GPU's 212-byte blocks make every word_at here an aligned load; plain w[o / 4] loads measured slower on the
// H100 for the 1B's Q6_K LM head (2048 x 128256: 262 -> 351 us per call, run 37b), so the word_at form stays.
// 224-byte blocks with vec4 loads (5 per chunk and row instead of 15) gained nothing there (run 37d).
fn chunk_q6k_i8(boff : u32, c : u32, kb0 : u32) {
  let h = c / 2u;
  let lh = c % 2u;
  for (var i = 0u; i < RPT; i++) {
    let base = rbase[i] + boff;
    let d = f16_at(base + 208u);
    let sa = sbytes4(word_at(base + 192u + 8u * h));
    let sb = sbytes4(word_at(base + 192u + 8u * h + 4u));
    let ds = d * select(vec4<f32>(sa.x, sa.z, sb.x, sb.z), vec4<f32>(sa.y, sa.w, sb.y, sb.w), lh == 1u);
    let l0 = base + 64u * h + 16u * lh;
    var q : array<vec4<u32>, 4>;  // [run][word]: centered codes
    for (var k = 0u; k < 4u; k++) {
      let a = word_at(l0 + 4u * k);
      let b = word_at(l0 + 32u + 4u * k);
      let hq = word_at(l0 + 128u - 32u * h + 4u * k);
      q[0][k] = i8_centered((a & 0x0F0F0F0Fu) | ((hq << 4u) & 0x30303030u), 0x20202020u, 6u);
      q[1][k] = i8_centered((b & 0x0F0F0F0Fu) | ((hq << 2u) & 0x30303030u), 0x20202020u, 6u);
      q[2][k] = i8_centered(((a >> 4u) & 0x0F0F0F0Fu) | (hq & 0x30303030u), 0x20202020u, 6u);
      q[3][k] = i8_centered(((b >> 4u) & 0x0F0F0F0Fu) | ((hq >> 2u) & 0x30303030u), 0x20202020u, 6u);
    }
    for (var m = 0u; m < MB; m++) {
      let xb = xblock(m, kb0 + 4u * h);
      var s = 0.0;
      for (var r = 0u; r < 4u; r++) {
        let xv = xq_at(2u * (xb + r) + lh);
        let qr = q[r];
        let ir = dot4I8Packed(qr.x, xv.x) + dot4I8Packed(qr.y, xv.y) + dot4I8Packed(qr.z, xv.z) + dot4I8Packed(qr.w, xv.w);
        s += ds[r] * xd_at(xb + r).x * f32(ir);
      }
      acc[MB * i + m] += s;
    }
  }
}

// Q8_0 / Q5_0 / Q4_1 (layouts as chunk_b32): the whole block at byte boff, x block kb.
fn chunk_b32_i8(wt : u32, boff : u32, kb : u32) {
  let q5 = wt == 6u;
  for (var i = 0u; i < RPT; i++) {
    let base = rbase[i] + boff;
    var d = 0.0;
    var q : array<u32, 8>;
    var mn = 0.0;
    if (wt == 8u) {
      let blk = q8_0_block(base);
      d = blk.d;
      q = blk.q;
    } else {
      let blk = nib32_block(q5, base);
      d = blk.d;
      mn = blk.mn;
      for (var k = 0u; k < 4u; k++) {
        let v = blk.q[k];
        q[k] = (v & 0x0F0F0F0Fu) | (i8_spread4((blk.qh >> (4u * k)) & 15u) << 4u);
        q[k + 4u] = ((v >> 4u) & 0x0F0F0F0Fu) | (i8_spread4((blk.qh >> (16u + 4u * k)) & 15u) << 4u);
      }
    }
    for (var m = 0u; m < MB; m++) {
      let xb = xblock(m, kb);
      let xd = xd_at(xb);
      acc[MB * i + m] += d * xd.x * f32(dot32_i8(q, xb)) + mn * xd.y;
    }
  }
}
