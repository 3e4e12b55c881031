// Random ggml weight blocks for the block-format kernel tests (linear_ggml_test.cpp, linear_ggml_fused_test.cpp):
// every type the GPU kernels decode, with each f16 field a random normal f16 in +-[0.01, 0.1] (BF16: normal
// values in +-[2^-8, 2^8); MXFP4: E8M0 scales 2^-8 .. 2^1; IQ1_M: its split f16 scale in +-[2^-7, 2^-3)).
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "formats/ggml_quant.h"
#include "ops/linear/linear_ggml.h"
#include "util/half.h"

namespace wgrt::test {

struct TypeInfo {
  GgmlType type;
  std::vector<int> half_offsets;  // f16 fields of a block (F16: the element itself)
};

// Every type the kernels decode. BF16's element and MXFP4's E8M0 byte are set separately (random_blocks).
inline const std::vector<TypeInfo> kTypes = {
    {GgmlType::F16, {0}},      {GgmlType::BF16, {}},       {GgmlType::Q4_0, {0}},     {GgmlType::Q4_1, {0, 2}},
    {GgmlType::Q5_0, {0}},     {GgmlType::Q5_1, {0, 2}},   {GgmlType::Q8_0, {0}},     {GgmlType::Q2_K, {80, 82}},
    {GgmlType::Q3_K, {108}},   {GgmlType::Q4_K, {0, 2}},   {GgmlType::Q5_K, {0, 2}},  {GgmlType::Q6_K, {208}},
    {GgmlType::IQ4_NL, {0}},   {GgmlType::IQ4_XS, {0}},    {GgmlType::MXFP4, {}},     {GgmlType::IQ2_XXS, {0}},
    {GgmlType::IQ2_XS, {0}},   {GgmlType::IQ2_S, {0}},     {GgmlType::IQ3_XXS, {0}},  {GgmlType::IQ3_S, {0}},
    {GgmlType::IQ1_S, {0}},    {GgmlType::IQ1_M, {}}};

inline uint64_t next(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Random blocks for N rows of K elements.
inline std::vector<uint8_t> random_blocks(const TypeInfo& t, int64_t N, int64_t K, uint64_t seed) {
  const auto blk = *ops::ggml_gpu_block(int64_t(t.type));
  const size_t nb = size_t(N * K / blk.elems);
  std::vector<uint8_t> b(nb * size_t(blk.bytes));
  uint64_t s = seed;
  for (auto& v : b) v = uint8_t(next(s));
  for (size_t i = 0; i < nb; ++i) {
    uint8_t* blkp = &b[i * size_t(blk.bytes)];
    if (t.type == GgmlType::BF16) {  // a random normal bf16 in +-[2^-8, 2^8)
      const uint16_t h = uint16_t(((next(s) & 1) << 15) | ((127 - 8 + next(s) % 16) << 7) | (next(s) & 0x7F));
      std::memcpy(blkp, &h, 2);
    }
    if (t.type == GgmlType::MXFP4) blkp[0] = uint8_t(120 + next(s) % 10);  // d = 2^-8 .. 2^1
    if (t.type == GgmlType::IQ1_M) {  // d: a normal f16 in +-[2^-7, 2^-3) split over the scales' top nibbles
      const uint16_t h = uint16_t(((next(s) & 1) << 15) | ((15 - 7 + next(s) % 4) << 10) | (next(s) & 0x3FF));
      for (int k = 0; k < 4; ++k) blkp[49 + 2 * k] = uint8_t((blkp[49 + 2 * k] & 0x0F) | (((h >> (4 * k)) & 15) << 4));
    }
    for (int off : t.half_offsets) {
      const double u = double(next(s) >> 11) / double(1ull << 53);
      float v = float(0.01 + 0.09 * u) * ((next(s) & 1) ? -1.0f : 1.0f);
      const uint16_t h = f32_to_f16(v);
      std::memcpy(blkp + off, &h, 2);
    }
  }
  return b;
}


}  // namespace wgrt::test
