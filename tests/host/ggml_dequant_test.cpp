// Dequantization of every block format wgrt loads (src/formats/ggml_blocks*.cpp), two oracles:
//  - gguf-py goldens (tests/golden/make_goldens_quant.py: llama.cpp's numpy dequantizer on random blocks with
//    finite f16 fields, plus an all-zero and an all-0xFF block): equal bit for bit, tolerance 0;
//  - hand-built blocks whose values follow from the layout alone (ggml_blocks.h), for each family, so that a
//    layout mistake that gguf-py shared would still be caught.
// Plus the error cases: sizes that are not whole blocks, data of the wrong length, undecodable types.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <wgrt/error.h>

#include "formats/ggml_quant.h"
#include "support/paths.h"
#include "util/half.h"

namespace wgrt {
namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

GgmlType type_by_name(const std::string& n) {
  for (uint32_t id = 0; id < 64; ++id)
    if (auto tr = ggml_type_traits(id); tr && n == tr->name) return static_cast<GgmlType>(id);
  throw std::runtime_error("unknown type " + n);
}

void put_half(uint8_t* p, float v) {
  uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, 2);
}

TEST(GgmlDequant, BitExactWithGgufPyGoldens) {
  const std::string dir = test::source_path("tests/golden/quant/");
  nlohmann::json m = nlohmann::json::parse(read_bytes(dir + "manifest.json"));
  size_t n_types = 0;
  for (const auto& t : m["types"]) {
    const std::string name = t["type"];
    const uint64_t n = t["elements"];
    std::vector<uint8_t> in = read_bytes(dir + name + ".in.bin"), want = read_bytes(dir + name + ".out.bin");
    ASSERT_EQ(want.size(), n * 4) << name;
    std::vector<float> got = dequantize(type_by_name(name), in, n, name);
    size_t bad = 0, first = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t g, w;
      std::memcpy(&g, &got[i], 4);
      std::memcpy(&w, want.data() + 4 * i, 4);
      if (g != w && bad++ == 0) first = i;
    }
    float w0;
    std::memcpy(&w0, want.data() + 4 * first, 4);
    EXPECT_EQ(bad, 0u) << name << ": first mismatch at " << first << " got " << got[first] << " want " << w0;
    ++n_types;
  }
  EXPECT_EQ(n_types, 22u);  // 13 block formats + F16 + BF16 + 7 grid i-quants
}

// Q4_K / Q5_K scale packing: sub-blocks 0-3 use the low 6 bits of bytes 0-3 (scale) and 4-7 (min);
// sub-blocks 4-7 take their low 4 bits from bytes 8-11 and the top 2 bits from bytes 0-7's bits 6-7.
void pack_k4_scales(uint8_t* s, const int sc[8], const int mn[8]) {
  std::memset(s, 0, 12);
  for (int j = 0; j < 4; ++j) {
    s[j] = uint8_t(sc[j] | ((sc[j + 4] >> 4) << 6));
    s[j + 4] = uint8_t(mn[j] | ((mn[j + 4] >> 4) << 6));
    s[j + 8] = uint8_t((sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4));
  }
}

TEST(GgmlDequant, Q4KAndQ5KFromLayout) {
  const int sc[8] = {1, 63, 7, 40, 33, 2, 63, 17}, mn[8] = {0, 5, 63, 9, 48, 1, 31, 62};
  uint8_t b4[144] = {}, b5[176] = {};
  put_half(b4, 0.5f), put_half(b4 + 2, 0.25f), put_half(b5, 0.5f), put_half(b5 + 2, 0.25f);
  pack_k4_scales(b4 + 4, sc, mn), pack_k4_scales(b5 + 4, sc, mn);
  auto q_of = [](int e) { return (e * 5 + 3) % 16; };  // the 4-bit code of element e
  for (int e = 0; e < 256; ++e) {
    const int p = e / 64, l = e % 32, hi = (e / 32) % 2;
    b4[16 + 32 * p + l] |= uint8_t(q_of(e) << (4 * hi));
    b5[48 + 32 * p + l] |= uint8_t(q_of(e) << (4 * hi));
    if (e % 3 == 0) b5[16 + l] |= uint8_t(1 << (2 * p + hi));  // 5th bit
  }
  auto y4 = dequantize(GgmlType::Q4_K, b4, 256, "t"), y5 = dequantize(GgmlType::Q5_K, b5, 256, "t");
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32;
    EXPECT_EQ(y4[e], 0.5f * sc[s] * q_of(e) - 0.25f * mn[s]) << e;
    EXPECT_EQ(y5[e], 0.5f * sc[s] * (q_of(e) + (e % 3 == 0 ? 16 : 0)) - 0.25f * mn[s]) << e;
  }
}

TEST(GgmlDequant, Q6KAndQ2KAndQ3KFromLayout) {
  uint8_t b6[210] = {}, b2[84] = {}, b3[110] = {};
  put_half(b6 + 208, 0.125f), put_half(b2 + 80, 0.5f), put_half(b2 + 82, 2.0f), put_half(b3 + 108, 0.25f);
  for (int i = 0; i < 16; ++i) {
    b6[192 + i] = uint8_t(int8_t(i * 9 - 70));
    b2[i] = uint8_t((i % 16) | (((15 - i) % 16) << 4));
  }
  // Q3_K 6-bit scales s3[i]: low nibbles in bytes 0-7 (i < 8 low, i >= 8 high), top 2 bits in bytes 8-11.
  int s3[16];
  for (int i = 0; i < 16; ++i) {
    s3[i] = (i * 11 + 5) % 64;
    b3[96 + (i % 8)] |= uint8_t((s3[i] & 15) << (4 * (i / 8)));
    b3[96 + 8 + i % 4] |= uint8_t((s3[i] >> 4) << (2 * (i / 4)));
  }
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128, r = (e / 32) % 4, l = e % 32;
    const int q6 = (e * 7) % 64;
    b6[64 * h + l + 32 * (r & 1)] |= uint8_t((q6 & 15) << (4 * (r / 2)));
    b6[128 + 32 * h + l] |= uint8_t((q6 >> 4) << (2 * r));
    const int q2 = (e * 3 + 1) % 4;  // Q2_K / Q3_K low bits: shift 2r of qs[32h + l]
    b2[16 + 32 * h + l] |= uint8_t(q2 << (2 * r));
    b3[32 + 32 * h + l] |= uint8_t(q2 << (2 * r));
    if (e % 5 != 0) b3[l] |= uint8_t(1 << (4 * h + r));  // high bit set: no -4
  }
  auto y6 = dequantize(GgmlType::Q6_K, b6, 256, "t"), y2 = dequantize(GgmlType::Q2_K, b2, 256, "t");
  auto y3 = dequantize(GgmlType::Q3_K, b3, 256, "t");
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128, r = (e / 32) % 4, l = e % 32, sub = 8 * h + 2 * r + l / 16;
    EXPECT_EQ(y6[e], 0.125f * float(int8_t(b6[192 + sub])) * float((e * 7) % 64 - 32)) << e;
    const int q2 = (e * 3 + 1) % 4;
    EXPECT_EQ(y2[e], 0.5f * float(b2[sub] & 15) * q2 - 2.0f * float(b2[sub] >> 4)) << e;
    EXPECT_EQ(y3[e], 0.25f * float(s3[sub] - 32) * float(q2 - (e % 5 != 0 ? 0 : 4))) << e;
  }
}

TEST(GgmlDequant, ThirtyTwoBlocksFromLayout) {
  // Q5_0 / Q5_1: code j in nibbles, 5th bit from qh bit j (j < 16) or j (16..31).
  uint8_t q50[22] = {}, q51[24] = {}, nl[18] = {}, xs[136] = {}, mx[17] = {};
  put_half(q50, 0.5f), put_half(q51, 0.5f), put_half(q51 + 2, -3.0f), put_half(nl, 2.0f);
  uint32_t qh = 0;
  for (int j = 0; j < 32; ++j) {
    const int q = (j * 13 + 7) % 32;
    q50[6 + j % 16] |= uint8_t((q & 15) << (4 * (j / 16)));
    q51[8 + j % 16] |= uint8_t((q & 15) << (4 * (j / 16)));
    nl[2 + j % 16] |= uint8_t((q & 15) << (4 * (j / 16)));
    mx[1 + j % 16] |= uint8_t((q & 15) << (4 * (j / 16)));
    if (q & 16) qh |= 1u << j;
  }
  std::memcpy(q50 + 2, &qh, 4), std::memcpy(q51 + 4, &qh, 4);
  mx[0] = 130;  // d = 2^(130-128) = 4
  // IQ4_XS: d = 1, sub-block scales ls = 32 + ib - 3, nibble codes as the IQ4_NL block in every sub-block.
  put_half(xs, 1.0f);
  uint16_t sh = 0;
  for (int ib = 0; ib < 8; ++ib) {
    const int ls = 32 + ib - 3;
    xs[4 + ib / 2] |= uint8_t((ls & 15) << (4 * (ib % 2)));
    sh |= uint16_t((ls >> 4) << (2 * ib));
    std::memcpy(xs + 8 + 16 * ib, nl + 2, 16);
  }
  std::memcpy(xs + 2, &sh, 2);
  const float kv[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  const float fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  auto y50 = dequantize(GgmlType::Q5_0, q50, 32, "t"), y51 = dequantize(GgmlType::Q5_1, q51, 32, "t");
  auto ynl = dequantize(GgmlType::IQ4_NL, nl, 32, "t"), yxs = dequantize(GgmlType::IQ4_XS, xs, 256, "t");
  auto ymx = dequantize(GgmlType::MXFP4, mx, 32, "t");
  for (int j = 0; j < 32; ++j) {
    const int q = (j * 13 + 7) % 32;
    EXPECT_EQ(y50[j], float(q - 16) * 0.5f) << j;
    EXPECT_EQ(y51[j], float(q) * 0.5f - 3.0f) << j;
    EXPECT_EQ(ynl[j], 2.0f * kv[q & 15]) << j;
    EXPECT_EQ(ymx[j], 4.0f * fp4[q & 15]) << j;
    for (int ib = 0; ib < 8; ++ib) EXPECT_EQ(yxs[32 * ib + j], float(ib - 3) * kv[q & 15]) << ib << " " << j;
  }
}

// Grid i-quants from the layout alone (ggml_blocks.h) and grid entries read off ggml-common.h by hand
// (iq2xxs_grid[0] = eight 8s; iq1s_grid[0] = eight -1s; iq3s_grid[1] = 3,1,1,1 and [4] = 15,1,1,1, low byte first).
TEST(GgmlDequant, GridIQuantsFollowTheirLayout) {
  std::vector<uint8_t> b(66, 0);
  put_half(b.data(), 1.0f);
  const uint32_t aux = (3u << 28) | 1u;  // scale nibble 3: db = (0.5 + 3) * 0.25; group 0 sign index 1 -> 0x81
  std::memcpy(&b[2 + 4], &aux, 4);
  std::vector<float> y = dequantize(GgmlType::IQ2_XXS, b, 256, "t");
  for (int j = 0; j < 8; ++j) EXPECT_EQ(y[j], (j == 0 || j == 7) ? -7.0f : 7.0f) << j;
  for (int j = 8; j < 32; ++j) EXPECT_EQ(y[j], 7.0f) << j;
  for (int j = 32; j < 256; ++j) EXPECT_EQ(y[j], 1.0f) << j;  // scale 0: db = 0.125, times 8

  std::vector<uint8_t> s(50, 0);
  put_half(s.data(), 1.0f);
  const uint16_t qh = 0x8000 | (2 << 12);  // dl = 2*2 + 1 = 5, delta -0.125
  std::memcpy(&s[34], &qh, 2);
  y = dequantize(GgmlType::IQ1_S, s, 256, "t");
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], -5.625f) << j;
  for (int j = 32; j < 256; ++j) EXPECT_EQ(y[j], -0.875f) << j;  // dl 1, delta +0.125

  std::vector<uint8_t> t(110, 0);
  put_half(t.data(), 1.0f);
  t[2] = 1, t[3] = 4;  // group 0: entries 1 and 4
  t[74] = 0x01;        // sign of element 0
  t[106] = 0x02;       // sub-block 0 scale nibble 2: db = 1 + 2*2
  y = dequantize(GgmlType::IQ3_S, t, 256, "t");
  const float want[8] = {-15, 5, 5, 5, 75, 5, 5, 5};
  for (int j = 0; j < 8; ++j) EXPECT_EQ(y[j], want[j]) << j;
}

TEST(GgmlDequant, BadSizesAndTypesAreClearErrors) {
  std::vector<uint8_t> blk(144);
  EXPECT_THROW(dequantize(GgmlType::Q4_K, blk, 128, "w"), FormatError);   // not a whole super-block
  EXPECT_THROW(dequantize(GgmlType::Q4_K, blk, 512, "w"), FormatError);   // too little data
  std::vector<uint8_t> d54(54);
  try {
    dequantize(GgmlType::TQ1_0, d54, 256, "blk.0.attn_q");
    ADD_FAILURE() << "no throw";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("blk.0.attn_q has type TQ1_0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Q6_K"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(ggml_type_decodable(GgmlType::Q8_K));
  EXPECT_TRUE(ggml_type_decodable(GgmlType::IQ4_XS));
}

}  // namespace
}  // namespace wgrt
