// f16/bf16 conversions: exhaustive f16 round trip, f32 -> f16 against the compiler's _Float16 (hardware-
// independent IEEE RNE), bf16 rounding cases.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "support/synth_model.h"
#include "util/half.h"

namespace wgrt {
namespace {

TEST(Half, F16RoundTripsExhaustively) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = f16_to_f32(uint16_t(h));
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) {
      EXPECT_TRUE(std::isnan(f));
      EXPECT_EQ(f32_to_f16(f) & 0x7C00, 0x7C00);
      EXPECT_NE(f32_to_f16(f) & 0x3FF, 0);
      continue;
    }
    ASSERT_EQ(f32_to_f16(f), h) << std::hex << h;
  }
  EXPECT_EQ(f16_to_f32(0x3C00), 1.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_f32(0x7BFF), 65504.0f);
  EXPECT_EQ(f16_to_f32(0xC000), -2.0f);
}

#ifdef __FLT16_MAX__
TEST(Half, F32ToF16MatchesCompilerFloat16) {
  std::vector<uint32_t> bits = {0x00000000u, 0x80000000u, 0x7F800000u, 0x477FF000u /*65520: ties to inf*/,
                                0x477FE000u, 0x33000000u /*2^-25*/, 0x33000001u, 0x387FC000u, 0x38800000u,
                                0x3F801000u /*tie*/, 0x3F803000u, 0x00000001u};
  uint64_t s = 88172645463325252ull;
  for (int i = 0; i < 2000000; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    uint32_t b = uint32_t(s);
    if (i % 2) b = (b & 0x807FFFFFu) | ((100u + (b >> 23) % 60u) << 23);  // concentrate on f16's range
    bits.push_back(b);
  }
  for (uint32_t b : bits) {
    float f = std::bit_cast<float>(b);
    if (std::isnan(f)) continue;
    _Float16 ref = static_cast<_Float16>(f);
    ASSERT_EQ(f32_to_f16(f), std::bit_cast<uint16_t>(ref)) << std::hex << b;
  }
}
#endif

TEST(Half, Bf16) {
  EXPECT_EQ(bf16_to_f32(0x3F80), 1.0f);
  EXPECT_EQ(bf16_to_f32(0xC049), std::bit_cast<float>(0xC0490000u));
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // tie -> even
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);  // tie -> even (up)
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F808001u)), 0x3F81);
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7F7FFFFFu)), 0x7F80);  // overflow -> inf
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
  for (float x : test::synth_values(10000, 5, -1e6f, 1e6f))
    EXPECT_LE(std::fabs(bf16_to_f32(f32_to_bf16(x)) - x), std::fabs(x) * (1.0f / 256.0f)) << x;
}

}  // namespace
}  // namespace wgrt
