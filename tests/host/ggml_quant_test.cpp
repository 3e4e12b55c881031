// Q4_0 / Q8_0 quantize -> dequantize (llama.cpp reference semantics) and the Q4_0 -> q4gsw repack.
// Error bounds (t = x/d with the unrounded f32 d, d16 = d rounded to f16, as llama.cpp stores it):
//   Q4_0: |x - x'| <= 0.5|d16| + 8|d - d16| for t < 7.5, <= |d16| + 8|d - d16| where the code clamps at 15;
//   Q8_0: |x - x'| <= 0.5|d16| + 127|d - d16|; plus 1e-7 relative slack for float arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <wgrt/error.h>

#include "formats/ggml_quant.h"
#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "formats/model_weights.h"
#include "support/synth_model.h"
#include "util/half.h"

namespace wgrt {
namespace {

std::vector<float> test_data() {
  std::vector<float> x = test::synth_values(32 * 40, 11, -3.0f, 3.0f);
  for (int j = 0; j < 32; ++j) x[j] = 0.0f;                      // block 0: all zero
  for (int j = 0; j < 32; ++j) x[32 + j] = 1e-3f * float(j + 1);  // block 1: positive max
  x[64 + 5] = -100.0f;                                          // block 2: large negative outlier
  x[96 + 7] = 50.0f, x[96 + 8] = -50.0f;                        // block 3: +-max tie (first wins)
  for (int j = 0; j < 32; ++j) x[128 + j] = 1e-6f * float(j - 16);  // block 4: f16-subnormal scale
  return x;
}

TEST(GgmlQuant, Q4_0ExactValuesAndNibbleLayout) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = float((j * 7) % 16 - 8) * 0.25f;  // all codes 0..15, -2.0 present
  auto q = quantize_q4_0(x);
  ASSERT_EQ(q.size(), 18u);
  uint16_t dh;
  std::memcpy(&dh, q.data(), 2);
  EXPECT_EQ(f16_to_f32(dh), 0.25f);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(q[2 + j] & 0xF, (j * 7) % 16) << j;
    EXPECT_EQ(q[2 + j] >> 4, ((j + 16) * 7) % 16) << j;
  }
  EXPECT_EQ(dequantize(GgmlType::Q4_0, q, 32, "t"), x);
}

TEST(GgmlQuant, Q4_0ErrorBound) {
  auto x = test_data();
  auto y = dequantize(GgmlType::Q4_0, quantize_q4_0(x), x.size(), "t");
  for (size_t b = 0; b < x.size() / 32; ++b) {
    float amax = 0, m = 0;
    for (int j = 0; j < 32; ++j)
      if (std::fabs(x[b * 32 + j]) > amax) amax = std::fabs(x[b * 32 + j]), m = x[b * 32 + j];
    const double d = m / -8.0f, d16 = f16_to_f32(f32_to_f16(float(d))), dd = std::fabs(d - d16);
    for (int j = 0; j < 32; ++j) {
      const size_t i = b * 32 + j;
      const double t = d != 0 ? x[i] / d : 0.0, err = std::fabs(double(x[i]) - y[i]);
      const double bound = (t < 7.5 ? 0.5 : 1.0) * std::fabs(d16) + 8 * dd + 1e-7 * amax;
      EXPECT_LE(err, bound) << "block " << b << " elem " << j << " x=" << x[i];
    }
  }
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 0.0f);
  EXPECT_EQ(y[64 + 5], -100.0f);   // the extreme element maps to code 0 exactly (d = 12.5 is f16-exact)
  EXPECT_EQ(y[96 + 7], 50.0f);     // first of the tie is the signed max -> d = -6.25, code 0
  EXPECT_EQ(y[96 + 8], -43.75f);   // the opposite extreme clamps at code 15: 7 * 6.25
}

TEST(GgmlQuant, Q8_0ErrorBound) {
  auto x = test_data();
  auto y = dequantize(GgmlType::Q8_0, quantize_q8_0(x), x.size(), "t");
  for (size_t b = 0; b < x.size() / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
    const double d = amax / 127.0f, d16 = f16_to_f32(f32_to_f16(float(d)));
    for (int j = 0; j < 32; ++j) {
      const size_t i = b * 32 + j;
      EXPECT_LE(std::fabs(double(x[i]) - y[i]), 0.5 * d16 + 127 * std::fabs(d - d16) + 1e-7 * amax) << i;
    }
  }
}

TEST(GgmlQuant, NonFiniteInputsAreDefined) {
  std::vector<float> x(32, 1.0f);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[4] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(quantize_q4_0(x).size(), 18u);
  EXPECT_EQ(quantize_q8_0(x).size(), 34u);
  EXPECT_THROW(quantize_q4_0(std::vector<float>(31)), InvalidArgument);
}

TEST(GgmlQuant, UnsupportedTypeNamesTensorAndType) {
  std::vector<uint8_t> data(144);
  try {
    dequantize(GgmlType::TQ1_0, std::span(data).first(54), 256, "blk.0.ffn_up.weight");
    FAIL();
  } catch (const Unsupported& e) {
    EXPECT_STREQ(e.what(), "tensor blk.0.ffn_up.weight has type TQ1_0, which wgrt cannot load (it loads F32, F16, "
                           "BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4, "
                           "IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M)");
  }
  EXPECT_THROW(dequantize(GgmlType::F32, data, 35, "t"), FormatError);  // 144 bytes != 35 floats
}

// Value of element (n, k) read straight from the documented q4gsw layout.
float q4gsw_value(const Q4gsw& r, uint64_t n, uint64_t k) {
  uint32_t word = r.qweight[n * (r.cols / 8) + k / 8];
  int q = int((word >> (4 * (k % 8))) & 0xF);
  return float(q - 8) * f16_to_f32(r.scales[n * (r.cols / 32) + k / 32]);
}

TEST(GgmlQuant, RepackQ4_0ToQ4gswMatchesDequantizedExactly) {
  // The last shape (2053 x 1056: 67749 blocks, 33 per row) is split over worker threads on machines with two or
  // more cores; ranges then start mid-row.
  const std::pair<uint64_t, uint64_t> shapes[] = {{1, 32}, {1, 64}, {1, 96}, {3, 32}, {3, 64}, {3, 96},
                                                  {7, 32}, {7, 64}, {7, 96}, {2053, 1056}};
  for (auto [N, K] : shapes) {
    {
      auto x = test::synth_values(N * K, N * 1000 + K, -2.0f, 2.0f);
      GgufWriter w;
      w.add_tensor_f32("m", {K, N}, x, GgmlType::Q4_0);
      GgufFile g = GgufFile::from_bytes(w.to_bytes());
      const GgufTensorInfo& t = g.tensor("m");
      auto deq = g.to_f32(t);
      Q4gsw r = g.repack_q4_0_to_q4gsw(t);
      ASSERT_EQ(r.rows, N);
      ASSERT_EQ(r.cols, K);
      ASSERT_EQ(r.qweight.size(), N * K / 8);
      ASSERT_EQ(r.scales.size(), N * K / 32);
      for (uint64_t n = 0; n < N; ++n)
        for (uint64_t k = 0; k < K; ++k) ASSERT_EQ(q4gsw_value(r, n, k), deq[n * K + k]) << N << "x" << K << " " << n << "," << k;
    }
  }
  GgufWriter w;
  std::vector<float> v(64);
  w.add_tensor_f32("f", {32, 2}, v, GgmlType::Q8_0);
  GgufFile g = GgufFile::from_bytes(w.to_bytes());
  EXPECT_THROW(g.repack_q4_0_to_q4gsw(g.tensor("f")), Unsupported);
}

TEST(GgmlQuant, WeightTensorQ4gswOnSynthModel) {
  test::SynthSpec s;
  s.matrix_type = GgmlType::Q4_0;
  WeightSource ws = load_gguf_llama(GgufFile::from_bytes(test::synth_llama_gguf(s)));
  const WeightTensor& t = ws.get("blk.0.ffn_down");  // [dim 32, hidden 64]
  ASSERT_EQ(t.shape, (std::vector<int64_t>{32, 64}));
  Q4gsw r = t.q4gsw();
  auto deq = t.to_f32();
  for (uint64_t n = 0; n < 32; ++n)
    for (uint64_t k = 0; k < 64; ++k) ASSERT_EQ(q4gsw_value(r, n, k), deq[n * 64 + k]);
  EXPECT_THROW(ws.get("blk.0.attn_norm").q4gsw(), Unsupported);
}

}  // namespace
}  // namespace wgrt
