// The 256-element super-block formats: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS (layouts in ggml_blocks.h).
#include <cstring>

#include "formats/ggml_blocks.h"
#include "util/half.h"

namespace wgrt::ggml_blocks {

void k4_scale_min(int j, const uint8_t* q, uint8_t* sc, uint8_t* mn) {
  if (j < 4) {
    *sc = q[j] & 63;
    *mn = q[j + 4] & 63;
  } else {
    *sc = static_cast<uint8_t>((q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4));
    *mn = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

void k4_factors(const uint8_t* blk, int j, float* mul, float* sub) {
  uint8_t sc, mn;
  k4_scale_min(j, blk + 4, &sc, &mn);
  *mul = half_at(blk) * static_cast<float>(sc);
  *sub = half_at(blk + 2) * static_cast<float>(mn);
}

void decode_q2_k(const uint8_t* blk, float* out) {
  const uint8_t* scales = blk;
  const uint8_t* q = blk + 16;
  const float d = half_at(blk + 80), dmin = half_at(blk + 82);
  int is = 0;
  for (int h = 0; h < 2; ++h, q += 32) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int t = 0; t < 2; ++t) {
        const uint8_t sc = scales[is++];
        const float dl = d * static_cast<float>(sc & 0x0F), ml = dmin * static_cast<float>(sc >> 4);
        for (int l = 0; l < 16; ++l) *out++ = dl * static_cast<float>((q[16 * t + l] >> shift) & 3) - ml;
      }
    }
  }
}

void decode_q3_k(const uint8_t* blk, float* out) {
  const uint8_t* hm = blk;
  const uint8_t* q = blk + 32;
  const uint8_t* s = blk + 96;
  const float d = half_at(blk + 108);
  // 16 6-bit scales: low nibbles from s[0..7] (sub-blocks 0-7 lo, 8-15 hi), top 2 bits from s[8..11].
  int scales[16];
  for (int i = 0; i < 16; ++i) {
    const int lo = i < 8 ? (s[i] & 0x0F) : (s[i - 8] >> 4);
    const int hi = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
    scales[i] = (lo | (hi << 4)) - 32;
  }
  int is = 0;
  uint8_t m = 1;
  for (int h = 0; h < 2; ++h, q += 32) {
    for (int shift = 0; shift < 8; shift += 2, m = static_cast<uint8_t>(m << 1)) {
      for (int t = 0; t < 2; ++t) {
        const float dl = d * static_cast<float>(scales[is++]);
        for (int l = 0; l < 16; ++l) {
          const int q3 = ((q[16 * t + l] >> shift) & 3) - ((hm[16 * t + l] & m) ? 0 : 4);
          *out++ = dl * static_cast<float>(q3);
        }
      }
    }
  }
}

void decode_q4_k(const uint8_t* blk, float* out) {
  const uint8_t* q = blk + 16;
  for (int p = 0; p < 4; ++p, q += 32) {
    float d1, m1, d2, m2;
    k4_factors(blk, 2 * p, &d1, &m1);
    k4_factors(blk, 2 * p + 1, &d2, &m2);
    for (int l = 0; l < 32; ++l) *out++ = d1 * static_cast<float>(q[l] & 0x0F) - m1;
    for (int l = 0; l < 32; ++l) *out++ = d2 * static_cast<float>(q[l] >> 4) - m2;
  }
}

void decode_q5_k(const uint8_t* blk, float* out) {
  const uint8_t* qh = blk + 16;
  const uint8_t* ql = blk + 48;
  for (int p = 0; p < 4; ++p, ql += 32) {
    float d1, m1, d2, m2;
    k4_factors(blk, 2 * p, &d1, &m1);
    k4_factors(blk, 2 * p + 1, &d2, &m2);
    const uint8_t u1 = static_cast<uint8_t>(1u << (2 * p)), u2 = static_cast<uint8_t>(2u << (2 * p));
    for (int l = 0; l < 32; ++l) *out++ = d1 * static_cast<float>((ql[l] & 0x0F) + (qh[l] & u1 ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l) *out++ = d2 * static_cast<float>((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
  }
}

void decode_q6_k(const uint8_t* blk, float* out) {
  const uint8_t* ql = blk;
  const uint8_t* qh = blk + 128;
  const int8_t* sc = reinterpret_cast<const int8_t*>(blk + 192);
  const float d = half_at(blk + 208);
  for (int h = 0; h < 2; ++h, out += 128, ql += 64, qh += 32, sc += 8) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      out[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      out[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      out[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      out[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
  }
}

void decode_iq4_xs(const uint8_t* blk, float* out) {
  const float d = half_at(blk);
  uint16_t scales_h;
  std::memcpy(&scales_h, blk + 2, 2);
  const uint8_t* scales_l = blk + 4;
  const uint8_t* qs = blk + 8;
  for (int ib = 0; ib < 8; ++ib, out += 32, qs += 16) {
    const int ls = ((scales_l[ib / 2] >> (4 * (ib % 2))) & 0x0F) | (((scales_h >> (2 * ib)) & 3) << 4);
    const float dl = d * static_cast<float>(ls - 32);
    for (int j = 0; j < 16; ++j) {
      out[j] = dl * static_cast<float>(kIq4nlValues[qs[j] & 0x0F]);
      out[j + 16] = dl * static_cast<float>(kIq4nlValues[qs[j] >> 4]);
    }
  }
}

}  // namespace wgrt::ggml_blocks
