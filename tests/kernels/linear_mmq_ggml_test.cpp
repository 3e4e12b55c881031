// The int8 prefill GEMM for block formats (wgrt.linear_ggml.default's int8 route: quantize_q8.wgsl with ORDER 1 +
// gemm_mmq_ggml.wgsl), forced on through the tuning policy (the default on every device with packed int8 dot products), for every
// type it has (ops::ggml_mmq_type), against the plain C++ reference: the src/formats decoders (bit-exact with
// llama.cpp) times x quantized per 32-k block as quantize_q8.wgsl does (q = round_half_even(x * 127 / amax),
// d = amax / 127), accumulated in double.
// Tolerance: |gpu - ref| <= 1e-5 * sum_k |xq_k W_nk| + 1e-6 + sum_{k near a tie} d_kb |W_nk|. The integer sums are
// exact, so the first two terms cover the f32 scale products (d * dW, dW itself decoded in f32) and the f32
// accumulation over <= 64 sub-blocks; the third covers elements whose x * 127 / amax lies within 1e-4 of a
// rounding tie, where the GPU's division (2.5 ulp in WGSL) may round q the other way (one step of d). A dropped or
// misplaced scale, minimum, sub-block or half (Q6_K's 16-k scales) breaks it: MinimumDroppedBreaksTheBound
// checks that the minimum's term alone is far outside it. The same outputs also satisfy the activation
// rounding bound against the f32 x (0.5001 d per element, as linear_mmq_test.cpp states).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ggml_q8_check.h"
#include "ggml_test_blocks.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "mmq_test_tiles.h"
#include "ops/linear/linear_ggml.h"
#include "reference/ops_a_reference.h"
#include "webgpu/device.h"
#include "webgpu/tuning.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;
using wgrt::test::GgmlLinear;
using wgrt::test::kTypes;
using wgrt::test::TypeInfo;
using wgrt::test::check_mmq;
namespace ref = wgrt::test::ref;

namespace {

webgpu::Tuning mmq_tuning() {
  webgpu::Tuning t = gpu().tuning();
  t.gemm.mmq_ggml_min_tiles = 1;
  t.gemm.mmq_ggml_min_rows = 0;  // the int8 GEMM at every M above the GEMV route
  t.ggml_gemv_int8 = 0;  // the M 1 check below reads the GEMV's f32 x (linear_ggml_int8_test.cpp: int8 x)
  return t;
}

GgmlLinear make_mmq(const TypeInfo& t, int64_t N, int64_t K, bool bias, uint64_t seed, int64_t max_m,
                    const webgpu::Tuning& tun = mmq_tuning()) {
  webgpu::ScopedTuning scoped(gpu(), tun);
  return wgrt::test::make(t, N, K, bias, seed, max_m);
}

std::vector<TypeInfo> mmq_types() {
  std::vector<TypeInfo> v;
  for (const TypeInfo& t : kTypes)
    if (ops::ggml_mmq_type(int64_t(t.type))) v.push_back(t);
  return v;
}

}  // namespace

// Every type: prefill rows M 9, 33, 65, 129, 513 (partial 128-row tiles, one past a tile), N 1, 37 and 300 (three
// column tiles, the last partial), K of 1 and 3 blocks of 256 (an odd count of 32-k sub-blocks for the 32-element
// types: 8 and 24, and K 96 for them: 3, the slice's second sub-block out of range), bias on odd N; the same
// graph also takes the GEMV route for M 1 and the int8 route again after it.
TEST(LinearMmqGgml, EveryTypeOddSizesAgainstInt8Reference) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  uint32_t seed = 3000;
  const std::vector<TypeInfo> types = mmq_types();
  ASSERT_EQ(types.size(), 8u);
  for (const TypeInfo& t : types) {
    const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems;
    std::vector<int64_t> ks = {256, 768};
    if (be == 32) ks.push_back(96);
    for (int64_t K : ks)
      for (int64_t N : {1, 37, 300}) {
        GgmlLinear r = make_mmq(t, N, K, N % 2 == 1, ++seed, 513);
        const std::string what = ggml_type_name(t.type) + " K " + std::to_string(K) + " N " + std::to_string(N);
        EXPECT_TRUE(wgrt::test::routed(r, "gemm_mmq_ggml.wgsl:main")) << what;
        std::vector<int64_t> ms = {9, 65};
        if (K == 256 && N == 37) ms = {9, 33, 65, 129, 513};
        for (int64_t M : ms) EXPECT_EQ(check_mmq(r, M, N, K, ++seed, what + " M " + std::to_string(M)), 0);
        EXPECT_EQ(check_mmq(r, 1, N, K, ++seed, what + " M 1 (GEMV)", true, false), 0);
        EXPECT_EQ(check_mmq(r, 9, N, K, ++seed, what + " M 9 again"), 0);
      }
  }
}

// Every tile variant (mmq_test_tiles.h), each with one of Q4_1 (a minimum; K 96 = 3 sub-blocks: a partial slice
// for KB 2 and 4; N 37), Q4_K (a minimum, 8 sub-blocks per block) and Q6_K (a scale per 16-k half) in turn (K
// 256, N 131: partial 64- and 128-column tiles), M 129 and 9 (partial 64- and 128-row tiles).
TEST(LinearMmqGgml, EveryTileVariantOddSizes) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  const std::vector<webgpu::MmqTile> tiles = wgrt::test::mmq_tile_variants();
  EXPECT_GE(tiles.size(), 9u);
  const std::vector<TypeInfo> all = mmq_types();
  std::vector<TypeInfo> types;
  for (GgmlType want : {GgmlType::Q4_1, GgmlType::Q4_K, GgmlType::Q6_K})
    for (const TypeInfo& t : all)
      if (t.type == want) types.push_back(t);
  ASSERT_EQ(types.size(), 3u);
  uint32_t seed = 7000;
  for (size_t i = 0; i < tiles.size(); ++i) {
    const webgpu::MmqTile& tile = tiles[i];
    webgpu::Tuning tun = mmq_tuning();
    tun.gemm_mmq_forced = tile;
    tun.gemm_mmq_pipeline = tile.pf;
    const TypeInfo& t = types[i % 3];
    const int64_t K = t.type == GgmlType::Q4_1 ? 96 : 256, N = K == 96 ? 37 : 131;
    GgmlLinear r = make_mmq(t, N, K, N == 37, ++seed, 129, tun);
    const std::string what = fmt::format("tile {}x{} kb {} cvt {} pf {} wg {} {} K {} N {}", tile.tm, tile.tn, tile.kb,
                                         tile.cvt, tile.pf, tile.wg, ggml_type_name(t.type), K, N);
    EXPECT_TRUE(wgrt::test::routed(r, "gemm_mmq_ggml.wgsl:main")) << what;
    for (int64_t M : {129, 9}) EXPECT_EQ(check_mmq(r, M, N, K, ++seed, what + " M " + std::to_string(M)), 0);
  }
}

// Weights over the binding limit (a lowered max_binding_bytes): 600 rows in chunks of 256, 256, 88, one int8
// GEMM dispatch each writing its columns, x quantized once.
TEST(LinearMmqGgml, WeightsSplitIntoBindingChunks) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  for (const TypeInfo& t : mmq_types()) {
    const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems, K = 256, N = 600;
    const uint64_t row_bytes = uint64_t(K / be) * uint64_t(ops::ggml_gpu_block(int64_t(t.type))->bytes);
    webgpu::Tuning tun = mmq_tuning();
    tun.max_binding_bytes = 300 * row_bytes;
    GgmlLinear r = make_mmq(t, N, K, true, 77, 140, tun);
    EXPECT_EQ(check_mmq(r, 140, N, K, 78, ggml_type_name(t.type) + " split"), 0);
  }
}

// The minimum's term matters: for Q4_K, the GPU output against a reference without each sub-block's minimum
// (W + m) is far outside the bound on the same data, so a kernel that dropped it would fail the test above.
TEST(LinearMmqGgml, MinimumDroppedBreaksTheBound) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  const TypeInfo t{GgmlType::Q4_K, {0, 2}};
  const int64_t M = 20, N = 37, K = 512;
  GgmlLinear r = make_mmq(t, N, K, false, 55, M);
  ASSERT_EQ(check_mmq(r, M, N, K, 56, "Q4_K"), 0);
  // W + m: the dequantization of the same codes with every minimum zeroed (the dmin f16 at byte 2 of each block).
  std::vector<uint8_t> raw = wgrt::test::random_blocks(t, N, K, 55);
  for (size_t b = 0; b < raw.size(); b += 144) raw[b + 2] = raw[b + 3] = 0;
  r.w = dequantize(t.type, raw, uint64_t(N * K), "w");
  EXPECT_GT(check_mmq(r, M, N, K, 56, "Q4_K without minimum", false), M * N / 2);
}

// The policy: on for every device with packed int8 dot products, CPU adapters with their own tile (64x128, 128
// invocations, at every shape); WGRT_GEMM_MMQ_GGML overrides it.
TEST(LinearMmqGgml, PolicyRule) {
  webgpu::DeviceFacts f;
  f.packed_dot = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_ggml_min_tiles, 1u);
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_ggml_min_rows, 0);
  // GPUs: the q4gsw rule's tile with 256 invocations and no pipeline, unless one is forced.
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm_mmq_ggml_tile(512, 2048), (webgpu::MmqTile{64, 64, 2, 1, 0, 256}));
  webgpu::TuningOverrides forced;
  forced.gemm_mmq_tile = webgpu::MmqTile{64, 64, 2, 1, 0, 128};
  forced.gemm_mmq_pipeline = 1;
  EXPECT_EQ(webgpu::Tuning::for_device(f, forced).gemm_mmq_ggml_tile(512, 2048), (webgpu::MmqTile{64, 64, 2, 1, 1, 128}));
  f.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_ggml_min_tiles, 1u) << "CPU adapters take the int8 GEMM too";
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_ggml_min_rows, 17) << "from 17 rows of x";
  for (int64_t m : {9, 64, 512})
    for (int64_t n : {64, 576, 8192})
      EXPECT_EQ(webgpu::Tuning::for_device(f).gemm_mmq_ggml_tile(m, n), (webgpu::MmqTile{64, 128, 2, 1, 0, 128}))
          << "CPU tile at M " << m << " N " << n;
  f.cpu_adapter = false;
  f.packed_dot = false;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_ggml_min_tiles, 0u);
  auto env = [](const char* v) {
    return webgpu::parse_tuning_env([v](const char* n) { return std::string(n) == "WGRT_GEMM_MMQ_GGML" ? v : nullptr; });
  };
  EXPECT_EQ(env("0").gemm_mmq_ggml_min_tiles, 0u);
  EXPECT_EQ(env("16").gemm_mmq_ggml_min_tiles, 16u);
  EXPECT_THROW(env("x"), InvalidArgument);
  webgpu::TuningOverrides o;
  o.gemm_mmq_ggml_min_tiles = 0;
  f.packed_dot = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f, o).gemm.mmq_ggml_min_tiles, 0u);
}
