// The grid i-quant super-block formats: IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M (layouts in
// ggml_blocks.h; grids in ggml_iq_grids.h, generated from llama.cpp's ggml-common.h). Same float products in
// the same order as llama.cpp's dequantize_row_iq* (ggml-quants.c at 80fb11a).
#include <cstring>

#include "formats/ggml_blocks.h"
#include "formats/ggml_iq_grids.h"
#include "util/half.h"

namespace wgrt::ggml_blocks {
namespace {

uint32_t grid_code(const uint32_t* grid, uint32_t i) { return (grid[i >> 1] >> (16 * (i & 1))) & 0xFFFF; }
// Element e (< 8) of entry i of a 2-bit grid: iq2 values 8, 25, 43.
float iq2_elem(const uint32_t* grid, uint32_t i, int e) {
  static constexpr uint8_t kVal[3] = {0x08, 0x19, 0x2B};
  return static_cast<float>(kVal[(grid_code(grid, i) >> (2 * e)) & 3]);
}
// Element e (< 4) of entry i of a 3-bit grid (iq3xxs: 4 + 8c, 62 for c = 7; iq3s: 2c + 1).
float iq3_elem(const uint32_t* grid, uint32_t i, int e, bool xxs) {
  const uint32_t c = (grid_code(grid, i) >> (3 * e)) & 7;
  return static_cast<float>(xxs ? (c == 7 ? 62 : 4 + 8 * c) : 2 * c + 1);
}
// Element e of entry i of the iq1s grid: -1, 0, 1.
float iq1_elem(uint32_t i, int e) {
  return static_cast<float>(static_cast<int>((grid_code(kIq1sGrid, i) >> (2 * e)) & 3) - 1);
}
// ksigns_iq2xs[i]: the 7 stored sign bits plus an 8th that makes the count of set bits even.
uint8_t ksign(uint32_t i) { return static_cast<uint8_t>(i | ((__builtin_popcount(i) & 1) << 7)); }
float sgn(uint8_t signs, int j) { return (signs >> j) & 1 ? -1.f : 1.f; }

constexpr float kIq1Delta = 0.125f;

}  // namespace

void decode_iq2_xxs(const uint8_t* blk, float* y) {
  const float d = half_at(blk);
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t* g = blk + 2 + 8 * ib;
    const uint32_t aux = u32_at(g + 4);
    const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.25f;
    for (int l = 0; l < 4; ++l, y += 8) {
      const uint8_t s = ksign((aux >> (7 * l)) & 127);
      for (int j = 0; j < 8; ++j) y[j] = db * iq2_elem(kIq2xxsGrid, g[l], j) * sgn(s, j);
    }
  }
}

void decode_iq2_xs(const uint8_t* blk, float* y) {
  const float d = half_at(blk);
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t sc = blk[66 + ib];
    const float db[2] = {d * (0.5f + static_cast<float>(sc & 0xF)) * 0.25f,
                         d * (0.5f + static_cast<float>(sc >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l, y += 8) {
      const uint16_t q = u16_at(blk + 2 + 2 * (4 * ib + l));
      const uint8_t s = ksign(q >> 9);
      for (int j = 0; j < 8; ++j) y[j] = db[l / 2] * iq2_elem(kIq2xsGrid, q & 511, j) * sgn(s, j);
    }
  }
}

void decode_iq2_s(const uint8_t* blk, float* y) {
  const float d = half_at(blk);
  const uint8_t *qs = blk + 2, *signs = blk + 34, *qh = blk + 66, *scales = blk + 74;
  for (int ib = 0; ib < 8; ++ib) {
    const float db[2] = {d * (0.5f + static_cast<float>(scales[ib] & 0xF)) * 0.25f,
                         d * (0.5f + static_cast<float>(scales[ib] >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l, y += 8) {
      const uint32_t idx = qs[4 * ib + l] | ((uint32_t(qh[ib]) << (8 - 2 * l)) & 0x300);
      for (int j = 0; j < 8; ++j) y[j] = db[l / 2] * iq2_elem(kIq2sGrid, idx, j) * sgn(signs[4 * ib + l], j);
    }
  }
}

void decode_iq3_xxs(const uint8_t* blk, float* y) {
  const float d = half_at(blk);
  const uint8_t* qs = blk + 2;
  for (int ib = 0; ib < 8; ++ib) {
    const uint32_t aux = u32_at(blk + 66 + 4 * ib);
    const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f;
    for (int l = 0; l < 4; ++l, y += 8) {
      const uint8_t s = ksign((aux >> (7 * l)) & 127);
      for (int j = 0; j < 4; ++j) {
        y[j] = db * iq3_elem(kIq3xxsGrid, qs[8 * ib + 2 * l], j, true) * sgn(s, j);
        y[j + 4] = db * iq3_elem(kIq3xxsGrid, qs[8 * ib + 2 * l + 1], j, true) * sgn(s, j + 4);
      }
    }
  }
}

void decode_iq3_s(const uint8_t* blk, float* y) {
  const float d = half_at(blk);
  const uint8_t *qs = blk + 2, *qh = blk + 66, *signs = blk + 74, *scales = blk + 106;
  for (int ib = 0; ib < 8; ++ib) {
    const float db = d * static_cast<float>(1 + 2 * ((scales[ib / 2] >> (4 * (ib % 2))) & 0xF));
    for (int l = 0; l < 4; ++l, y += 8) {
      const uint32_t i1 = qs[8 * ib + 2 * l] | ((uint32_t(qh[ib]) << (8 - 2 * l)) & 256);
      const uint32_t i2 = qs[8 * ib + 2 * l + 1] | ((uint32_t(qh[ib]) << (7 - 2 * l)) & 256);
      const uint8_t s = signs[4 * ib + l];
      for (int j = 0; j < 4; ++j) {
        y[j] = db * iq3_elem(kIq3sGrid, i1, j, false) * sgn(s, j);
        y[j + 4] = db * iq3_elem(kIq3sGrid, i2, j, false) * sgn(s, j + 4);
      }
    }
  }
}

void decode_iq1_s(const uint8_t* blk, float* y) {
  const float d = half_at(blk);
  for (int ib = 0; ib < 8; ++ib) {
    const uint16_t qh = u16_at(blk + 34 + 2 * ib);
    const float dl = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
    const float delta = qh & 0x8000 ? -kIq1Delta : kIq1Delta;
    for (int l = 0; l < 4; ++l, y += 8) {
      const uint32_t idx = blk[2 + 4 * ib + l] | (((qh >> (3 * l)) & 7) << 8);
      for (int j = 0; j < 8; ++j) y[j] = dl * (iq1_elem(idx, j) + delta);
    }
  }
}

void decode_iq1_m(const uint8_t* blk, float* y) {
  const uint8_t *qs = blk, *qh = blk + 32;
  uint16_t sc[4];
  std::memcpy(sc, blk + 48, 8);
  const uint16_t dh = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00) |
                                            (sc[3] & 0xF000));
  const float d = f16_to_f32(dh);
  for (int ib = 0; ib < 8; ++ib) {
    const float dl[2] = {d * static_cast<float>(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 0)) & 7) + 1),
                         d * static_cast<float>(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1)};
    const uint8_t h0 = qh[2 * ib], h1 = qh[2 * ib + 1];
    const uint32_t idx[4] = {qs[4 * ib] | ((uint32_t(h0) << 8) & 0x700u), qs[4 * ib + 1] | ((uint32_t(h0) << 4) & 0x700u),
                             qs[4 * ib + 2] | ((uint32_t(h1) << 8) & 0x700u),
                             qs[4 * ib + 3] | ((uint32_t(h1) << 4) & 0x700u)};
    const float delta[4] = {h0 & 0x08 ? -kIq1Delta : kIq1Delta, h0 & 0x80 ? -kIq1Delta : kIq1Delta,
                            h1 & 0x08 ? -kIq1Delta : kIq1Delta, h1 & 0x80 ? -kIq1Delta : kIq1Delta};
    for (int l = 0; l < 4; ++l, y += 8)
      for (int j = 0; j < 8; ++j) y[j] = dl[l / 2] * (iq1_elem(idx[l], j) + delta[l]);
  }
}

}  // namespace wgrt::ggml_blocks
