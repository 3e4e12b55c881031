// Decoding of ggml block formats from their raw file bytes, held in `w : array<u32>` (the including kernel
// declares it; little-endian, a buffer padded to whole words). Layouts: src/formats/ggml_blocks.h; values equal
// src/formats' C++ decoders up to f32 rounding of the scale products (the GPU may fuse multiply-adds).
// override WTYPE picks the format (ggml type id): 1 F16, 8 Q8_0, 6 Q5_0, 12 Q4_K, 14 Q6_K; ggml_value(base, j)
// is element j of the block whose first byte is `base`. Every f16 field of these formats sits at an even
// offset, so it never straddles two words.

override WTYPE : u32 = 8u;

fn wbyte(o : u32) -> u32 {
  return (w[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu;
}
fn wu16(o : u32) -> u32 {
  return (w[o >> 2u] >> ((o & 2u) * 8u)) & 0xffffu;
}
fn wf16(o : u32) -> f32 {
  return unpack2x16float(wu16(o)).x;
}
fn wi8(o : u32) -> f32 {
  return f32((i32(wbyte(o)) << 24u) >> 24u);
}

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

// Blocks: (elements, bytes) per block of WTYPE.
fn ggml_block_elems() -> u32 {
  switch WTYPE {
    case 1u: { return 1u; }
    case 12u, 14u: { return 256u; }
    default: { return 32u; }
  }
}
fn ggml_block_bytes() -> u32 {
  switch WTYPE {
    case 1u: { return 2u; }
    case 6u: { return 22u; }
    case 12u: { return 144u; }
    case 14u: { return 210u; }
    default: { return 34u; }
  }
}

fn ggml_value(base : u32, j : u32) -> f32 {
  switch WTYPE {
    case 1u: {  // F16
      return wf16(base);
    }
    case 6u: {  // Q5_0: f16 d, u32 qh, u8 qs[16]
      let d = wf16(base);
      let qh = wu16(base + 2u) | (wu16(base + 4u) << 16u);
      let nib = (wbyte(base + 6u + (j & 15u)) >> ((j >> 4u) * 4u)) & 15u;
      let q = nib | (((qh >> j) & 1u) << 4u);
      return (f32(q) - 16.0) * d;
    }
    case 12u: {  // Q4_K: f16 d, f16 dmin, u8 scales[12], u8 qs[128]
      let p = j / 64u;
      let hi = (j / 32u) & 1u;
      let sb = 2u * p + hi;
      let q = (wbyte(base + 16u + 32u * p + (j & 31u)) >> (4u * hi)) & 15u;
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
    default: {  // Q8_0: f16 d, i8 qs[32]
      return wi8(base + 2u + j) * wf16(base);
    }
  }
}
