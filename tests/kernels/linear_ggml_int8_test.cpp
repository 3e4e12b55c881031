// The int8-activation block GEMV (wgrt.linear_ggml.default's GEMV routes with the policy's ggml_gemv_int8:
// quantize_q8.wgsl ORDER 1, then gemv_kq.wgsl XQ 1 / gemv_kq_i8.wgsl), forced on through the tuning policy (the
// rule keeps CPU adapters on f32 x), for every type it has (Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K), against the plain
// C++ reference of ggml_q8_check.h (the src/formats decoders times x quantized per 32-k block as quantize_q8.wgsl
// does, in double) and its tolerance: the integer dot products are exact, so only f32 scale products,
// accumulation and near-tie roundings remain. A dropped minimum breaks it (MinimumDroppedBreaksTheBound). The
// fused prologue / epilogue combinations are checked in linear_ggml_fused_test.cpp (Int8GemvRoute).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ggml_q8_check.h"
#include "ggml_test_blocks.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/linear_ggml.h"
#include "webgpu/device.h"
#include "webgpu/tuning.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::check_mmq;
using wgrt::test::gpu;
using wgrt::test::GgmlLinear;
using wgrt::test::TypeInfo;

namespace {

// mode: the policy's ggml_gemv_int8 (1 quantize pass, 2 staged per workgroup).
webgpu::Tuning int8_tuning(uint32_t mode) {
  webgpu::Tuning t = gpu().tuning();
  t.ggml_gemv_blocks = true;
  t.ggml_gemv_int8 = mode;
  t.ggml_gemv_int8_staged_rows = 8;  // mode 2 on every route (the default policy stages only up to 2 rows of x)
  t.gemm.mmq_ggml_min_tiles = 0;  // M > 8 stays on the GEMV layers on CPU adapters (their GEMM kind)
  return t;
}

GgmlLinear make_i8(const TypeInfo& t, int64_t N, int64_t K, bool bias, uint64_t seed, int64_t max_m,
                   const webgpu::Tuning& tun) {
  webgpu::ScopedTuning scoped(gpu(), tun);
  return wgrt::test::make(t, N, K, bias, seed, max_m);
}

std::vector<TypeInfo> i8_types() {
  std::vector<TypeInfo> v;
  for (const TypeInfo& t : wgrt::test::kTypes)
    if (ops::ggml_gemv_blocks_type(int64_t(t.type))) v.push_back(t);
  return v;
}

bool quantizes(GgmlLinear& r) { return wgrt::test::routed(r, "quantize_q8.wgsl:main"); }

}  // namespace

// Every type, both modes: M 1..8 (the four grid-layer routes of 1, 2, 4, 8 rows, partial layers at 3, 5, 6, 7), N
// 37 and 301 (odd; 301 leaves a partial workgroup of rows), K of 3 blocks of 256 (768: 24 sub-blocks, fewer chunks
// than k lanes) and, for the 32-element types, K 96 (3 blocks); a bias on odd N. Mode 2 on Q4_K and Q6_K also at K
// 2304 (9 blocks), whose staging at 4 and 8 rows per layer does not fit 16 KiB of workgroup memory with 2 rows
// of W per invocation (lavapipe's limit): 1 row there, and at 8 rows the quantize pass.
TEST(LinearGgmlInt8, EveryTypeRowsOneToEightAgainstInt8Reference) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  uint32_t seed = 7000;
  const std::vector<TypeInfo> types = i8_types();
  ASSERT_EQ(types.size(), 6u);
  for (uint32_t mode : {1u, 2u})
  for (const TypeInfo& t : types) {
    std::vector<std::pair<int64_t, int64_t>> kn = {{768, 37}, {768, 301}};
    if (ops::ggml_gpu_block(int64_t(t.type))->elems == 32) kn.push_back({96, 37});
    if (mode == 2 && (t.type == GgmlType::Q4_K || t.type == GgmlType::Q6_K)) kn.push_back({2304, 37});
    for (auto [K, N] : kn) {
      GgmlLinear r = make_i8(t, N, K, N % 2 == 1, ++seed, 8, int8_tuning(mode));
      const std::string what = fmt::format("mode {} {} K {} N {}", mode, ggml_type_name(t.type), K, N);
      for (int64_t M = 1; M <= 8; ++M) {
        EXPECT_EQ(check_mmq(r, M, N, K, ++seed, what + " M " + std::to_string(M)), 0);
        if (M == 1) EXPECT_EQ(quantizes(r), mode == 1) << what;
      }
    }
  }
}

// The GPUs' wide-weight rule (ggml_gemv_wide_rpt: 4 rows of W per invocation from ggml_gemv_wide_n rows, the LM
// heads) on every int8 type, brought down to N 301 here so that lavapipe runs the int8 chunks at RPT 4 (its own
// rule gives Q6_K 2): each row of x against the int8 reference, M 1 .. 8 (RPT capped at 16 / MB).
TEST(LinearGgmlInt8, WideWeightsAtFourRowsPerInvocation) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  uint32_t seed = 7400;
  for (const TypeInfo& t : i8_types()) {
    webgpu::Tuning tun = int8_tuning(2);
    tun.force_ggml_gemv_rpt(1);
    tun.ggml_gemv_wide_rpt = 4;
    tun.ggml_gemv_wide_n = 300;
    ASSERT_EQ(tun.ggml_gemv_rpt_for(int64_t(t.type), 301), 4u);
    ASSERT_EQ(tun.ggml_gemv_rpt_for(int64_t(t.type), 299), 1u);
    const int64_t K = 768, N = 301;
    GgmlLinear r = make_i8(t, N, K, true, ++seed, 8, tun);
    for (int64_t M : {1, 2, 3, 8})
      EXPECT_EQ(check_mmq(r, M, N, K, ++seed, fmt::format("{} wide M {}", ggml_type_name(t.type), M)), 0);
  }
}

// Weights over the binding limit (a lowered max_binding_bytes): 600 rows in chunks of 256, 256, 88, one GEMV
// dispatch each, x quantized once; and more rows than the GEMV's 8 (two grid layers).
TEST(LinearGgmlInt8, WeightsSplitIntoBindingChunks) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  for (const TypeInfo& t : i8_types()) {
    if (t.type != GgmlType::Q4_K && t.type != GgmlType::Q6_K && t.type != GgmlType::Q8_0) continue;
    const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems, K = 256, N = 600;
    const uint64_t row_bytes = uint64_t(K / be) * uint64_t(ops::ggml_gpu_block(int64_t(t.type))->bytes);
    webgpu::Tuning tun = int8_tuning(1);
    tun.max_binding_bytes = 300 * row_bytes;
    tun.gemv_max_rows = 8;
    GgmlLinear r = make_i8(t, N, K, true, 77, 11, tun);
    EXPECT_EQ(check_mmq(r, 1, N, K, 78, ggml_type_name(t.type) + " split M 1"), 0);
    EXPECT_EQ(check_mmq(r, 5, N, K, 79, ggml_type_name(t.type) + " split M 5"), 0);
    EXPECT_EQ(r.exe->dispatch_count(true), 4u) << "quantize + 3 GEMV chunks";
    if (gpu().tuning().gemm.kind != webgpu::GemmTuning::Kind::Cpu) continue;  // M > 8 takes a GEMM on GPUs
    EXPECT_EQ(check_mmq(r, 11, N, K, 80, ggml_type_name(t.type) + " split M 11"), 0);
  }
}

// The minimum's term matters: for Q4_K, the GPU output against a reference without each sub-block's minimum
// (W + m) is far outside the bound on the same data, so a kernel that dropped it fails the test above.
TEST(LinearGgmlInt8, MinimumDroppedBreaksTheBound) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  const TypeInfo t{GgmlType::Q4_K, {0, 2}};
  const int64_t M = 3, N = 37, K = 512;
  GgmlLinear r = make_i8(t, N, K, false, 55, M, int8_tuning(2));
  ASSERT_EQ(check_mmq(r, M, N, K, 56, "Q4_K"), 0);
  std::vector<uint8_t> raw = wgrt::test::random_blocks(t, N, K, 55);
  for (size_t b = 0; b < raw.size(); b += 144) raw[b + 2] = raw[b + 3] = 0;  // dmin = 0
  r.w = dequantize(t.type, raw, uint64_t(N * K), "w");
  EXPECT_GT(check_mmq(r, M, N, K, 56, "Q4_K without minimum", false), M * N / 2);
  // And against the f32 x the outputs differ from the f32 GEMV by the activation rounding: not bit-equal.
  r.w = dequantize(t.type, wgrt::test::random_blocks(t, N, K, 55), uint64_t(N * K), "w");
  EXPECT_GT(check_mmq(r, M, N, K, 56, "Q4_K as if f32 x", false, false), 0);
}

// The staging limit (policy ggml_gemv_int8_staged_rows, 2 by default): with mode 2, the 1- and 2-row routes stage x
// per workgroup (no quantize pass), the 4- and 8-row routes take the pass; values hold on both.
TEST(LinearGgmlInt8, StagedOnlyUpToThePolicysRows) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  const TypeInfo t{GgmlType::Q4_K, {0, 2}};
  const int64_t N = 37, K = 512;
  webgpu::Tuning tun = int8_tuning(2);
  tun.ggml_gemv_int8_staged_rows = webgpu::Tuning{}.ggml_gemv_int8_staged_rows;
  tun.gemv_max_rows = 8;  // every M here on the GEMV routes (CPU adapters take a GEMM from fewer rows)
  ASSERT_EQ(tun.ggml_gemv_int8_staged_rows, 2u);
  GgmlLinear r = make_i8(t, N, K, false, 91, 8, tun);
  for (int64_t M : {1, 2, 3, 4, 8}) {
    EXPECT_EQ(check_mmq(r, M, N, K, uint32_t(92 + M), "Q4_K M " + std::to_string(M)), 0);
    EXPECT_EQ(quantizes(r), M > 2) << "M " << M;
  }
}

// The policy: staged (2) for GPUs with packed int8 dot products, off on CPU adapters; WGRT_GEMV_KQ_INT8 overrides
// it (and is ignored without packed dot products).
TEST(LinearGgmlInt8, PolicyRule) {
  webgpu::DeviceFacts f;
  f.packed_dot = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f).ggml_gemv_int8, 2u);
  f.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f).ggml_gemv_int8, 0u);
  auto env = [](const char* v) {
    return webgpu::parse_tuning_env([v](const char* n) { return std::string(n) == "WGRT_GEMV_KQ_INT8" ? v : nullptr; });
  };
  EXPECT_EQ(env("1").ggml_gemv_int8, 1u);
  EXPECT_EQ(env("0").ggml_gemv_int8, 0u);
  EXPECT_THROW(env("3"), InvalidArgument);
  EXPECT_THROW(env("on"), InvalidArgument);
  EXPECT_EQ(webgpu::Tuning::for_device(f, env("1")).ggml_gemv_int8, 1u);
  f.cpu_adapter = false;
  EXPECT_EQ(webgpu::Tuning::for_device(f, env("0")).ggml_gemv_int8, 0u);
  f.packed_dot = false;
  EXPECT_EQ(webgpu::Tuning::for_device(f, env("2")).ggml_gemv_int8, 0u);
}
