// Decoding of ggml block formats from their raw file bytes, read through `fn ggml_word(i : u32) -> u32` (word i
// of the including kernel's weight binding; little-endian, a buffer padded to whole words). Layouts: src/formats/ggml_blocks.h; values equal
// src/formats' C++ decoders up to f32 rounding of the scale products (the GPU may fuse multiply-adds).
// override WTYPE picks the format (ggml type id): 1 F16, 30 BF16, 2 Q4_0, 3 Q4_1, 6 Q5_0, 7 Q5_1, 8 Q8_0,
// 10 Q2_K, 11 Q3_K, 12 Q4_K, 13 Q5_K, 14 Q6_K, 20 IQ4_NL, 23 IQ4_XS, 39 MXFP4, the grid i-quants 16-19, 21,
// 22, 29 (ggml_decode_iq.wgsl) (ops/linear/linear_ggml.h lists
// the same set); ggml_value(base, j) is element j of the block whose first byte is `base`. Every 16-bit field of
// these formats sits at an even offset, so it never straddles two words.

override WTYPE : u32 = 8u;

fn wbyte(o : u32) -> u32 {
  return (ggml_word(o >> 2u) >> ((o & 3u) * 8u)) & 0xffu;
}
fn wu16(o : u32) -> u32 {
  return (ggml_word(o >> 2u) >> ((o & 2u) * 8u)) & 0xffffu;
}
fn wf16(o : u32) -> f32 {
  return unpack2x16float(wu16(o)).x;
}
fn wi8(o : u32) -> f32 {
  return f32((i32(wbyte(o)) << 24u) >> 24u);
}
#include "ops/linear/ggml_decode_iq.wgsl"

// Q4_K 6-bit scale (s = false) or min (s = true) of sub-block sb (0..7); sc bytes at base + 4.
fn k4_field(base : u32, sb : u32, s : bool) -> f32 {
  let q = base + 4u;
  if (sb < 4u) {
    return f32(wbyte(q + sb + select(0u, 4u, s)) & 63u);
  }
  let lo = select(wbyte(q + sb + 4u) & 15u, wbyte(q + sb + 4u) >> 4u, s);
  let hi = wbyte(q + sb - select(4u, 0u, s)) >> 6u;
  return f32(lo | (hi << 4u));
}

const kIq4nl = array<f32, 16>(-127.0, -104.0, -83.0, -65.0, -49.0, -35.0, -22.0, -10.0,
                               1.0, 13.0, 25.0, 38.0, 53.0, 69.0, 89.0, 113.0);
const kFp4 = array<f32, 16>(0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 0.0, -1.0, -2.0, -3.0, -4.0, -6.0, -8.0, -12.0);

// Blocks: (elements, bytes) per block of WTYPE.
fn ggml_block_elems() -> u32 {
  switch WTYPE {
    case 1u, 30u: { return 1u; }
    case 10u, 11u, 12u, 13u, 14u, 23u, 16u, 17u, 18u, 19u, 21u, 22u, 29u: { return 256u; }
    default: { return 32u; }
  }
}
fn ggml_block_bytes() -> u32 {
  switch WTYPE {
    case 1u, 30u: { return 2u; }
    case 2u, 20u: { return 18u; }
    case 3u: { return 20u; }
    case 6u: { return 22u; }
    case 7u: { return 24u; }
    case 10u: { return 84u; }
    case 11u: { return 110u; }
    case 12u: { return 144u; }
    case 13u: { return 176u; }
    case 14u: { return 212u; }  // the GPU layout: 210 bytes and 2 of padding (ops/linear/linear_ggml.h)
    case 23u: { return 136u; }
    case 39u: { return 17u; }
    case 16u, 17u, 18u, 19u, 21u, 22u, 29u: { return iq_block_bytes(); }
    default: { return 34u; }
  }
}

// The 4-bit code of element j of a 32-element run of nibbles at `qs` (j < 16 low nibbles, j >= 16 high ones).
fn nib32(qs : u32, j : u32) -> u32 {
  return (wbyte(qs + (j & 15u)) >> ((j >> 4u) * 4u)) & 15u;
}
// The 5th bit of element j from the u32 at `o` (Q5_0 / Q5_1).
fn qh5(o : u32, j : u32) -> u32 {
  return (((wu16(o) | (wu16(o + 2u) << 16u)) >> j) & 1u) << 4u;
}

fn ggml_value(base : u32, j : u32) -> f32 {
  switch WTYPE {
    case 1u: {  // F16
      return wf16(base);
    }
    case 30u: {  // BF16
      return bitcast<f32>(wu16(base) << 16u);
    }
    case 2u: {  // Q4_0: f16 d, u8 qs[16]
      return (f32(nib32(base + 2u, j)) - 8.0) * wf16(base);
    }
    case 3u: {  // Q4_1: f16 d, f16 m, u8 qs[16]
      return f32(nib32(base + 4u, j)) * wf16(base) + wf16(base + 2u);
    }
    case 6u: {  // Q5_0: f16 d, u32 qh, u8 qs[16]
      return (f32(nib32(base + 6u, j) | qh5(base + 2u, j)) - 16.0) * wf16(base);
    }
    case 7u: {  // Q5_1: f16 d, f16 m, u32 qh, u8 qs[16]
      return f32(nib32(base + 8u, j) | qh5(base + 4u, j)) * wf16(base) + wf16(base + 2u);
    }
    case 20u: {  // IQ4_NL: f16 d, u8 qs[16]
      return wf16(base) * kIq4nl[nib32(base + 2u, j)];
    }
    case 39u: {  // MXFP4: u8 e (E8M0), u8 qs[16]; d = 2^(e - 128)
      let e = wbyte(base);
      let d = bitcast<f32>(select((e - 1u) << 23u, 0x00200000u << e, e < 2u));
      return kFp4[nib32(base + 1u, j)] * d;
    }
    case 10u: {  // Q2_K: u8 scales[16], u8 qs[64], f16 d, f16 dmin
      let h = j / 128u;
      let r = (j / 32u) & 3u;
      let t = (j / 16u) & 1u;
      let sc = wbyte(base + 8u * h + 2u * r + t);
      let q = (wbyte(base + 16u + 32u * h + 16u * t + (j & 15u)) >> (2u * r)) & 3u;
      return wf16(base + 80u) * f32(sc & 15u) * f32(q) - wf16(base + 82u) * f32(sc >> 4u);
    }
    case 11u: {  // Q3_K: u8 hmask[32], u8 qs[64], u8 scales[12], f16 d
      let h = j / 128u;
      let r = (j / 32u) & 3u;
      let t = (j / 16u) & 1u;
      let l = j & 15u;
      let sb = 8u * h + 2u * r + t;
      let lo = select(wbyte(base + 96u + sb - 8u) >> 4u, wbyte(base + 96u + sb) & 15u, sb < 8u);
      let hi = (wbyte(base + 104u + (sb & 3u)) >> (2u * (sb / 4u))) & 3u;
      let q2 = i32((wbyte(base + 32u + 32u * h + 16u * t + l) >> (2u * r)) & 3u);
      let hbit = (wbyte(base + 16u * t + l) >> (4u * h + r)) & 1u;
      return wf16(base + 108u) * (f32(lo | (hi << 4u)) - 32.0) * f32(q2 - select(4, 0, hbit != 0u));
    }
    case 12u: {  // Q4_K: f16 d, f16 dmin, u8 scales[12], u8 qs[128]
      let p = j / 64u;
      let hi = (j / 32u) & 1u;
      let sb = 2u * p + hi;
      let q = (wbyte(base + 16u + 32u * p + (j & 31u)) >> (4u * hi)) & 15u;
      return wf16(base) * k4_field(base, sb, false) * f32(q) - wf16(base + 2u) * k4_field(base, sb, true);
    }
    case 13u: {  // Q5_K: f16 d, f16 dmin, u8 scales[12], u8 qh[32], u8 qs[128]
      let p = j / 64u;
      let hi = (j / 32u) & 1u;
      let sb = 2u * p + hi;
      let l = j & 31u;
      let q = ((wbyte(base + 48u + 32u * p + l) >> (4u * hi)) & 15u) | (((wbyte(base + 16u + l) >> sb) & 1u) << 4u);
      return wf16(base) * k4_field(base, sb, false) * f32(q) - wf16(base + 2u) * k4_field(base, sb, true);
    }
    case 14u: {  // Q6_K: u8 ql[128], u8 qh[64], i8 scales[16], f16 d
      let h = j / 128u;
      let r = (j / 32u) & 3u;
      let l = j & 31u;
      let lo = (wbyte(base + 64u * h + l + 32u * (r & 1u)) >> (4u * (r >> 1u))) & 15u;
      let hb = (wbyte(base + 128u + 32u * h + l) >> (2u * r)) & 3u;
      let sc = wi8(base + 192u + 8u * h + 2u * r + l / 16u);
      return wf16(base + 208u) * sc * (f32(lo | (hb << 4u)) - 32.0);
    }
    case 23u: {  // IQ4_XS: f16 d, u16 scales_h, u8 scales_l[4], u8 qs[128]
      let ib = j / 32u;
      let ls = ((wbyte(base + 4u + ib / 2u) >> (4u * (ib & 1u))) & 15u) | (((wu16(base + 2u) >> (2u * ib)) & 3u) << 4u);
      return wf16(base) * (f32(ls) - 32.0) * kIq4nl[nib32(base + 8u + 16u * ib, j & 31u)];
    }
    case 16u, 17u, 18u, 19u, 21u, 22u, 29u: {  // grid i-quants: ggml_decode_iq.wgsl
      return iq_value(base, j);
    }
    default: {  // Q8_0: f16 d, i8 qs[32]
      return wi8(base + 2u + j) * wf16(base);
    }
  }
}

// Elements j0 .. j0+7 of a block (j0 a multiple of 8, so the run stays inside one sub-block), with the block's
// scales decoded once: the GEMV's unit of work. F16/BF16 (one element per "block"): the 8 elements starting at
// `base`. Same values as ggml_value.
fn ggml_run8(base : u32, j0 : u32) -> array<f32, 8> {
  var v : array<f32, 8>;
  switch WTYPE {
    case 1u: {
      for (var e = 0u; e < 8u; e++) { v[e] = wf16(base + 2u * e); }
    }
    case 30u: {
      for (var e = 0u; e < 8u; e++) { v[e] = bitcast<f32>(wu16(base + 2u * e) << 16u); }
    }
    case 8u: {  // Q8_0
      let d = wf16(base);
      for (var e = 0u; e < 8u; e++) { v[e] = wi8(base + 2u + j0 + e) * d; }
    }
    case 6u: {  // Q5_0
      let d = wf16(base);
      let qh = wu16(base + 2u) | (wu16(base + 4u) << 16u);
      let sh = (j0 >> 4u) * 4u;
      for (var e = 0u; e < 8u; e++) {
        let j = j0 + e;
        let q = ((wbyte(base + 6u + (j & 15u)) >> sh) & 15u) | (((qh >> j) & 1u) << 4u);
        v[e] = (f32(q) - 16.0) * d;
      }
    }
    case 12u: {  // Q4_K: rows of 144-byte blocks start 16-byte aligned, so the 8 codes are two whole words
      let p = j0 / 64u;
      let hi = (j0 / 32u) & 1u;
      let sb = 2u * p + hi;
      let mul = wf16(base) * k4_field(base, sb, false);
      let sub = wf16(base + 2u) * k4_field(base, sb, true);
      let o = (base + 16u + 32u * p + (j0 & 31u)) >> 2u;
      let wd = array<u32, 2>(ggml_word(o), ggml_word(o + 1u));
      for (var e = 0u; e < 8u; e++) {
        let q = (wd[e / 4u] >> (8u * (e & 3u) + 4u * hi)) & 15u;
        v[e] = mul * f32(q) - sub;
      }
    }
    case 14u: {  // Q6_K
      let h = j0 / 128u;
      let r = (j0 / 32u) & 3u;
      let l0 = j0 & 31u;
      let ds = wf16(base + 208u) * wi8(base + 192u + 8u * h + 2u * r + l0 / 16u);
      let ql = base + 64u * h + l0 + 32u * (r & 1u);
      let qh = base + 128u + 32u * h + l0;
      for (var e = 0u; e < 8u; e++) {
        let lo = (wbyte(ql + e) >> (4u * (r >> 1u))) & 15u;
        let hb = (wbyte(qh + e) >> (2u * r)) & 3u;
        v[e] = ds * (f32(lo | (hb << 4u)) - 32.0);
      }
    }
    case 16u, 17u, 18u, 19u, 21u, 22u, 29u: {
      v = iq_run8(base, j0);
    }
    default: {
      for (var e = 0u; e < 8u; e++) { v[e] = ggml_value(base, j0 + e); }
    }
  }
  return v;
}
