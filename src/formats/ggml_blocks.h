// Per-block decoders of the ggml weight formats (private to src/formats; the public entry is dequantize() in
// ggml_quant.h). Each decode_<type>(blk, out) reads one block of `block_bytes` bytes at `blk` (any alignment,
// little-endian) and writes its `block_elems` floats to `out`, in the order the elements sit along a row.
// Bit-exact with llama.cpp's dequantize_row_<type> (ggml/src/ggml-quants.c at 80fb11a): the same products in the
// same order, in f32 (wgrt builds without -march, so nothing is contracted into an FMA).
//
// Layouts (ggml/src/ggml-common.h; "f16" = IEEE half, QK_K = 256):
//  32-element blocks (ggml_blocks_32.cpp)
//   Q4_0   18 B: f16 d, u8 qs[16].                 x[j] = (lo(qs[j]) - 8) d, x[j+16] = (hi(qs[j]) - 8) d
//   Q4_1   20 B: f16 d, f16 m, u8 qs[16].          x[j] = lo(qs[j]) d + m,   x[j+16] = hi(qs[j]) d + m
//   Q5_0   22 B: f16 d, u32 qh, u8 qs[16].         5th bit of x[j] = bit j of qh, of x[j+16] = bit j+16;
//                                                  x = (q5 - 16) d
//   Q5_1   24 B: f16 d, f16 m, u32 qh, u8 qs[16].  as Q5_0 with x = q5 d + m
//   Q8_0   34 B: f16 d, i8 qs[32].                 x[j] = qs[j] d
//   IQ4_NL 18 B: f16 d, u8 qs[16].                 as Q4_0 with the code mapped through kIq4nlValues
//   MXFP4  17 B: u8 e (E8M0), u8 qs[16].           as IQ4_NL with kMxfp4Values and d = 2^(e-128) (half of
//                                                  the E8M0 value: the table holds doubled E2M1 values)
//  256-element super-blocks (ggml_blocks_k.cpp)
//   Q2_K   84 B: u8 scales[16], u8 qs[64], f16 d, f16 dmin. 16 sub-blocks of 16; scales[i] = lo 4 bits scale,
//                hi 4 bits min; x = d*sc * q2 - dmin*mn. q2 of element 128h + 32s + 16t + l (h<2, s<4, t<2,
//                l<16) = bits 2s..2s+1 of qs[32h + 16t + l]; its sub-block is 8h + 2s + t.
//   Q3_K  110 B: u8 hmask[32], u8 qs[64], u8 scales[12], f16 d. 16 sub-blocks of 16, 6-bit signed scales
//                (low 4 bits from scales[0..7] nibbles, high 2 bits from scales[8..11]), x = d*(sc-32) * q3,
//                q3 = q2 (placed as in Q2_K) - 4 unless bit (4h+s) of hmask[16t + l] is set.
//   Q4_K  144 B: f16 d, f16 dmin, u8 scales[12], u8 qs[128]. 8 sub-blocks of 32 with 6-bit scale and min
//                (get_scale_min_k4 packing); element 64p + l (l<32): lo(qs[32p+l]) with sub-block 2p,
//                element 64p + 32 + l: hi(qs[32p+l]) with sub-block 2p+1; x = d*sc * q - dmin*mn.
//   Q5_K  176 B: f16 d, f16 dmin, u8 scales[12], u8 qh[32], u8 qs[128]. As Q4_K plus a 5th bit: bit 2p of
//                qh[l] for the low-nibble half, bit 2p+1 for the high-nibble half.
//   Q6_K  210 B: u8 ql[128], u8 qh[64], i8 scales[16], f16 d. Element 128h + 32r + l (r<4, l<32): low 4 bits
//                from ql[64h + l + 32(r&1)] (lo nibble for r<2, hi for r>=2), high 2 bits = bits 2r..2r+1 of
//                qh[32h + l]; q6 - 32, scale scales[8h + 2r + l/16]; x = (d*sc) * q.
//   IQ4_XS 136 B: f16 d, u16 scales_h, u8 scales_l[4], u8 qs[128]. 8 sub-blocks of 32, 6-bit scale
//                ls = nibble ib of scales_l | (bits 2ib..2ib+1 of scales_h) << 4; sub-block ib laid out as an
//                IQ4_NL block with d = d*(ls-32).
//  grid i-quants, 256-element super-blocks of 8 sub-blocks of 32 (ggml_blocks_iq.cpp; grids of 8 or 4 values
//  in ggml_iq_grids.h; "sign byte" s of a 7-bit index i = i | parity(i) << 7, element j negated if bit j set)
//   IQ2_XXS 66 B: f16 d, then per sub-block 8 B: u8 grid[4] (iq2xxs entries, 8 elements each), u32 w:
//                 sign indices (w >> 7l) & 127, scale db = d*(0.5 + (w >> 28))*0.25.
//   IQ2_XS  74 B: f16 d, u16 qs[32] (9-bit iq2xs entry | 7-bit sign index << 9), u8 scales[8]: sub-block ib
//                 groups 0-1 use db = d*(0.5 + lo(scales[ib]))*0.25, groups 2-3 hi(scales[ib]).
//   IQ2_S   82 B: f16 d, u8 qs[32] (entry low 8 bits), u8 signs[32] (plain sign bytes), u8 qh[8] (entry
//                 bits 8-9 of group l of sub-block ib = bits 2l..2l+1 of qh[ib]), u8 scales[8] (as IQ2_XS).
//   IQ3_XXS 98 B: f16 d, u8 qs[64] (iq3xxs entries, 4 elements each, 2 per group of 8), u32 w[8]: sign
//                 indices as IQ2_XXS, db = d*(0.5 + (w >> 28))*0.5.
//   IQ3_S  110 B: f16 d, u8 qs[64], u8 qh[8] (9th entry bit: bit 2l of qh[ib] for the group's first half,
//                 2l+1 for the second), u8 signs[32], u8 scales[4]: db = d*(1 + 2*nibble ib of scales).
//   IQ1_S   50 B: f16 d, u8 qs[32], u16 qh[8]: entry of group l = qs[4ib+l] | bits 3l..3l+2 of qh[ib] << 8;
//                 dl = d*(2*bits 12-14 + 1); x = dl*(g + delta), delta = -0.125 if bit 15 else 0.125.
//   IQ1_M   56 B: u8 qs[32], u8 qh[16], u16 sc[4]. d = the f16 made of the top nibbles of sc[0..3] (low to
//                 high); entries qs[4ib+l] | 3 bits of qh[2ib + l/2] (nibble l&1, bit 3 = delta sign);
//                 3-bit scales: dl = d*(2*s+1), s = bits 6(ib&1)+3(l/2) of sc[ib/2].
#pragma once
#include <cstdint>
#include <cstring>

#include "util/half.h"

namespace wgrt::ggml_blocks {

// The little-endian u16 / u32 at p (any alignment).
inline uint16_t u16_at(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t u32_at(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// The f16 at p (any alignment) as f32.
inline float half_at(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return f16_to_f32(v);
}

inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};
inline constexpr int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

void decode_q4_0(const uint8_t* blk, float* out);
void decode_q4_1(const uint8_t* blk, float* out);
void decode_q5_0(const uint8_t* blk, float* out);
void decode_q5_1(const uint8_t* blk, float* out);
void decode_q8_0(const uint8_t* blk, float* out);
void decode_iq4_nl(const uint8_t* blk, float* out);
void decode_mxfp4(const uint8_t* blk, float* out);

void decode_q2_k(const uint8_t* blk, float* out);
void decode_q3_k(const uint8_t* blk, float* out);
void decode_q4_k(const uint8_t* blk, float* out);
void decode_q5_k(const uint8_t* blk, float* out);
void decode_q6_k(const uint8_t* blk, float* out);
void decode_iq4_xs(const uint8_t* blk, float* out);

void decode_iq2_xxs(const uint8_t* blk, float* out);
void decode_iq2_xs(const uint8_t* blk, float* out);
void decode_iq2_s(const uint8_t* blk, float* out);
void decode_iq3_xxs(const uint8_t* blk, float* out);
void decode_iq3_s(const uint8_t* blk, float* out);
void decode_iq1_s(const uint8_t* blk, float* out);
void decode_iq1_m(const uint8_t* blk, float* out);

// Q4_K / Q5_K 6-bit scale and min of sub-block j (0..7) from the 12-byte scales field (llama.cpp's
// get_scale_min_k4): j < 4: sc = q[j] & 63, mn = q[j+4] & 63; else sc = lo(q[j+4]) | (q[j-4] >> 6) << 4,
// mn = hi(q[j+4]) | (q[j] >> 6) << 4.
void k4_scale_min(int j, const uint8_t* q, uint8_t* sc, uint8_t* mn);
// The f32 factors of sub-block j of a Q4_K / Q5_K block (d, dmin at bytes 0 and 2, scales at 4):
// x = mul * q - sub, with mul = d * sc and sub = dmin * mn.
void k4_factors(const uint8_t* blk, int j, float* mul, float* sub);

}  // namespace wgrt::ggml_blocks
