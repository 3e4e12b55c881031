// The 32-element block formats: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, MXFP4 (layouts in ggml_blocks.h).
#include <cstring>

#include "formats/ggml_blocks.h"
#include "util/half.h"

namespace wgrt::ggml_blocks {

namespace {
// The 5th bits of elements j and j+16 (Q5_0 / Q5_1), already shifted to 0x10.
int q5_hi_lo(uint32_t qh, int j) { return static_cast<int>(((qh >> j) << 4) & 0x10); }
int q5_hi_hi(uint32_t qh, int j) { return static_cast<int>((qh >> (j + 12)) & 0x10); }

}  // namespace

void decode_q4_0(const uint8_t* blk, float* out) {
  const float d = half_at(blk);
  const uint8_t* qs = blk + 2;
  for (int j = 0; j < 16; ++j) {
    out[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
    out[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

void decode_q4_1(const uint8_t* blk, float* out) {
  const float d = half_at(blk), m = half_at(blk + 2);
  const uint8_t* qs = blk + 4;
  for (int j = 0; j < 16; ++j) {
    out[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
    out[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
  }
}

void decode_q5_0(const uint8_t* blk, float* out) {
  const float d = half_at(blk);
  const uint32_t qh = u32_at(blk + 2);
  const uint8_t* qs = blk + 6;
  for (int j = 0; j < 16; ++j) {
    out[j] = static_cast<float>(((qs[j] & 0x0F) | q5_hi_lo(qh, j)) - 16) * d;
    out[j + 16] = static_cast<float>(((qs[j] >> 4) | q5_hi_hi(qh, j)) - 16) * d;
  }
}

void decode_q5_1(const uint8_t* blk, float* out) {
  const float d = half_at(blk), m = half_at(blk + 2);
  const uint32_t qh = u32_at(blk + 4);
  const uint8_t* qs = blk + 8;
  for (int j = 0; j < 16; ++j) {
    out[j] = static_cast<float>((qs[j] & 0x0F) | q5_hi_lo(qh, j)) * d + m;
    out[j + 16] = static_cast<float>((qs[j] >> 4) | q5_hi_hi(qh, j)) * d + m;
  }
}

void decode_q8_0(const uint8_t* blk, float* out) {
  const float d = half_at(blk);
  for (int j = 0; j < 32; ++j) out[j] = static_cast<float>(static_cast<int8_t>(blk[2 + j])) * d;
}

void decode_iq4_nl(const uint8_t* blk, float* out) {
  const float d = half_at(blk);
  const uint8_t* qs = blk + 2;
  for (int j = 0; j < 16; ++j) {
    out[j] = d * static_cast<float>(kIq4nlValues[qs[j] & 0x0F]);
    out[j + 16] = d * static_cast<float>(kIq4nlValues[qs[j] >> 4]);
  }
}

void decode_mxfp4(const uint8_t* blk, float* out) {
  // 2^(e-128) as f32 bits; e = 0 and 1 are the subnormals 2^-128 and 2^-127 (ggml_e8m0_to_fp32_half).
  const uint32_t e = blk[0];
  const uint32_t bits = e < 2 ? (0x00200000u << e) : ((e - 1) << 23);
  float d;
  std::memcpy(&d, &bits, 4);
  const uint8_t* qs = blk + 1;
  for (int j = 0; j < 16; ++j) {
    out[j] = static_cast<float>(kMxfp4Values[qs[j] & 0x0F]) * d;
    out[j + 16] = static_cast<float>(kMxfp4Values[qs[j] >> 4]) * d;
  }
}

}  // namespace wgrt::ggml_blocks
