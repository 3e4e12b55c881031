// The int8 prefill GEMM (route 3 of et_vk.linear_q4gsw.default: quantize_q8.wgsl + gemm_mmq.wgsl) on the real
// adapter, forced on through the tuning policy (lavapipe's rule keeps its CPU GEMM), against the double reference
// on the dequantized weights with x unquantized; f32 scales and f16 scale pairs (q4gsw_scale.wgsl).
// Tolerance, derived from the activation quantization (quantize_q8.wgsl): each x[m][k] is replaced by q * d with
// d = max |x| of its 32-k block / 127 and |x - q d| <= d / 2 (plus the f32 roundings of 127 / max and x * that,
// well below 1e-4 d), and the block sums are exact integers, so
//   |out - ref| <= sum_kb 0.5001 d[m][kb] * sum_{k in kb} |W[n][k]| + 1e-5 sum_k |x[m][k] W[n][k]| + 1e-6
// (the second term covers the f32 scale products and the accumulation over <= 64 blocks). The data gives every
// 32-k block of x and every weight group its own magnitude (factors 2^-3 .. 2^3), so a scale taken from the
// wrong block, group or row breaks the bound; ScalesAppliedWronglyBreakTheBound checks that on the same data.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "mmq_test_tiles.h"
#include "ops/linear/gemm.h"
#include "ops/linear/q4gsw.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"
#include "util/half.h"
#include "webgpu/device.h"
#include "webgpu/tuning.h"

using namespace wgrt;
using wgrt::test::gpu;
namespace ref = wgrt::test::ref;

namespace {

webgpu::Tuning mmq_tuning() {
  webgpu::Tuning t = gpu().tuning();
  t.gemm.mmq_min_tiles = 1;
  return t;
}

// x with each 32-k block scaled by 2^((m + kb) % 7 - 3).
std::vector<float> block_scaled_x(int64_t M, int64_t K, uint32_t seed) {
  std::vector<float> x = ref::random_floats(size_t(M * K), seed);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) x[size_t(m * K + k)] *= std::ldexp(1.0f, int((m + k / 32) % 7) - 3);
  return x;
}

// Weights whose group g of row n is scaled by 2^((n + 2g) % 5 - 2) (so the q4gsw scales differ per group and row).
std::vector<float> group_scaled_w(int64_t N, int64_t K, int64_t G, uint32_t seed) {
  std::vector<float> w = ref::random_floats(size_t(N * K), seed, -0.5f, 0.5f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) w[size_t(n * K + k)] *= std::ldexp(1.0f, int((n + 2 * (k / G)) % 5) - 2);
  return w;
}

struct Mmq {
  std::unique_ptr<ExecutableGraph> exe;
  ValueId x = -1, out = -1;
  std::vector<float> w, bias;  // dequantized [N, K]; bias or empty
  int64_t N = 0, K = 0;
};

// f16: the scales uploaded as f16 pairs (what the GGUF loader does), the reference decoding with the rounded ones.
Mmq make_mmq(int64_t max_m, int64_t K, int64_t N, int64_t G, bool with_bias, uint32_t seed,
             const webgpu::Tuning& t = mmq_tuning(), bool f16 = false) {
  Graph g;
  Mmq L;
  L.N = N;
  L.K = K;
  L.x = g.input("x", DType::F32, {max_m, K});
  ops::Q4gswWeights q = ops::q4gsw_quantize(group_scaled_w(N, K, G, seed), N, K, G);
  std::vector<uint16_t> s16;
  if (f16)
    for (float& s : q.scales) s16.push_back(f32_to_f16(s)), s = f16_to_f32(s16.back());
  L.w = ref::q4gsw_decode(q.qweight, q.scales, N, K, G);
  ValueId bias = g.none();
  if (with_bias) {
    L.bias = ref::random_floats(size_t(N), seed + 7, -1.0f, 1.0f);
    bias = g.constant("bias", DType::F32, {N}, ConstantData::from_vector(L.bias));
  }
  ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(q.qweight));
  ValueId sc = f16 ? g.constant("scales", DType::F16, {N, K / G}, ConstantData::from_vector(std::move(s16)))
                   : g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(q.scales));
  L.out = g.tensor_like(DType::F32, "out");
  g.op("et_vk.linear_q4gsw.default", {L.x, qw, sc, g.int_value(G), bias, L.out}, "lin");
  g.output(L.out);
  webgpu::ScopedTuning scoped(gpu(), t);
  L.exe = ExecutableGraph::build(std::move(g), gpu());
  return L;
}

// The bound of the header for output (m, n); `dsrc(m, kb)` gives the block scale used (the true one by default).
double mmq_bound(const std::vector<float>& x, const std::vector<float>& w, int64_t m, int64_t n, int64_t K) {
  double quant = 0, mag = 0;
  for (int64_t kb = 0; kb < K / 32; ++kb) {
    double amax = 0, wsum = 0;
    for (int64_t k = kb * 32; k < kb * 32 + 32; ++k) {
      amax = std::max(amax, std::fabs(double(x[size_t(m * K + k)])));
      wsum += std::fabs(double(w[size_t(n * K + k)]));
      mag += std::fabs(double(x[size_t(m * K + k)]) * double(w[size_t(n * K + k)]));
    }
    quant += 0.5001 * amax / 127.0 * wsum;
  }
  return quant + 1e-5 * mag + 1e-6;
}

// Runs M rows; returns the number of outputs outside the bound (and fails the test for each, up to 5 reported).
int check_rows(Mmq& L, int64_t M, uint32_t seed, const std::string& what) {
  const int64_t K = L.K, N = L.N;
  const std::vector<float> x = block_scaled_x(M, K, seed);
  L.exe->set_input(L.x, {M, K}, std::span<const float>(x));
  L.exe->execute();
  EXPECT_EQ(L.exe->dims(L.out), (Dims{M, N})) << what;
  const std::vector<float> got = L.exe->read_f32(L.out);
  const std::vector<float> want = ref::linear(x, L.w, L.bias, M, K, N);
  int bad = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      const double d = std::fabs(double(got[size_t(m * N + n)]) - double(want[size_t(m * N + n)]));
      const double b = mmq_bound(x, L.w, m, n, K);
      if (!(d <= b) && ++bad <= 5)
        ADD_FAILURE() << what << ": out[" << m << "][" << n << "] = " << got[size_t(m * N + n)] << ", reference "
                      << want[size_t(m * N + n)] << ", |diff| " << d << " > bound " << b;
    }
  return bad;
}

struct Case {
  int64_t M, K, N, G;
  bool bias;
};

}  // namespace

TEST(LinearMmq, OddSizesWithinQuantizationBound) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // M not a multiple of the 128-row tile (9 = just above the GEMV rows), K = 32 * odd (a partial 2-block slice),
  // N odd (a partial column tile), every group size, bias and none.
  const std::vector<Case> cases = {
      {9, 32, 1, 32, false},    {129, 96, 67, 32, true},  {200, 160, 301, 32, false}, {130, 480, 129, 32, true},
      {33, 192, 255, 64, true}, {257, 384, 67, 128, false}, {9, 2016, 131, 32, true},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const std::string what = fmt::format("M {} K {} N {} G {} bias {}", c.M, c.K, c.N, c.G, c.bias);
    Mmq L = make_mmq(c.M, c.K, c.N, c.G, c.bias, seed++);
    EXPECT_EQ(check_rows(L, c.M, seed++, what), 0) << what;
  }
}

TEST(LinearMmq, F16ScalesOddGroupCounts) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // K / G = 5, 3 and 3 groups per row (rows start mid-word in the f16 pairs), odd N, and a binding split whose
  // chunks start at 256-row multiples.
  const std::vector<Case> cases = {{129, 160, 67, 32, true}, {200, 192, 301, 64, false}, {33, 384, 255, 128, true}};
  uint32_t seed = 70;
  for (const Case& c : cases) {
    const std::string what = fmt::format("f16 scales M {} K {} N {} G {}", c.M, c.K, c.N, c.G);
    Mmq L = make_mmq(c.M, c.K, c.N, c.G, c.bias, seed++, mmq_tuning(), true);
    EXPECT_EQ(check_rows(L, c.M, seed++, what), 0) << what;
  }
  webgpu::Tuning t = mmq_tuning();
  t.max_binding_bytes = 32768;  // rows of 80 bytes: chunks of 256, 256 and 89 rows
  Mmq L = make_mmq(140, 160, 601, 32, false, 80, t, true);
  EXPECT_EQ(check_rows(L, 140, 81, "f16 scales split"), 0);
}

TEST(LinearMmq, ScalesAppliedWronglyBreakTheBound) {
  // The test data's power: the exact product with one scale misapplied (x's block scale from the next block, or
  // the weight's group scale from the next row) leaves most outputs outside the bound that the kernel meets.
  const int64_t M = 16, K = 160, N = 24, G = 32, KB = K / 32;
  const std::vector<float> x = block_scaled_x(M, K, 5);
  ops::Q4gswWeights q = ops::q4gsw_quantize(group_scaled_w(N, K, G, 6), N, K, G);
  const std::vector<float> w = ref::q4gsw_decode(q.qweight, q.scales, N, K, G);
  const std::vector<float> want = ref::linear(x, w, {}, M, K, N);
  for (int variant = 0; variant < 2; ++variant) {
    // variant 0: x's block kb rescaled as if its scale were block kb+1's; 1: weight row n with row n+1's scales
    std::vector<float> xs = x, ws = w;
    if (variant == 0) {
      for (int64_t m = 0; m < M; ++m)
        for (int64_t k = 0; k < K; ++k) {
          const int64_t kb = k / 32;
          xs[size_t(m * K + k)] *= std::ldexp(1.0f, int((m + (kb + 1) % KB) % 7) - int((m + kb) % 7));
        }
    } else {
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k) {
          const float s = q.scales[size_t(n * (K / G) + k / G)], s1 = q.scales[size_t(((n + 1) % N) * (K / G) + k / G)];
          ws[size_t(n * K + k)] = w[size_t(n * K + k)] / s * s1;
        }
    }
    const std::vector<float> wrong = ref::linear(xs, ws, {}, M, K, N);
    int outside = 0;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        outside += std::fabs(double(wrong[size_t(m * N + n)]) - double(want[size_t(m * N + n)])) > mmq_bound(x, w, m, n, K);
    EXPECT_GT(outside, M * N * 3 / 4) << "variant " << variant;
  }
}

TEST(LinearMmq, RowsChangeBetweenExecutesAndRoutes) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // One graph of up to 300 rows: the int8 route at 300, 129 and 9 rows, the GEMV at 1 and 8, then int8 again
  // (the quantized scratch is re-written each time).
  Mmq L = make_mmq(300, 224, 77, 32, true, 11);
  uint32_t seed = 40;
  for (int64_t M : {300, 129, 1, 9, 8, 300}) EXPECT_EQ(check_rows(L, M, seed++, fmt::format("M {}", M)), 0) << M;
}

TEST(LinearMmq, WeightsSplitIntoBindingChunks) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // 600 rows of 32 B with an 8 KiB limit: chunks of 256, 256 and 88 rows, one int8 GEMM dispatch each after the
  // one quantize dispatch, writing their column ranges.
  webgpu::Tuning t = mmq_tuning();
  t.max_binding_bytes = 8192;
  Mmq L = make_mmq(140, 64, 600, 32, true, 13, t);
  EXPECT_EQ(check_rows(L, 140, 14, "split"), 0);
}

TEST(LinearMmq, ZeroBlocksAndNonFiniteInputs) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  const int64_t M = 20, K = 96, N = 9;
  Mmq L = make_mmq(M, K, N, 32, true, 17);
  std::vector<float> x = block_scaled_x(M, K, 18);
  for (int64_t k = 0; k < K; ++k) x[size_t(3 * K + k)] = 0.0f;  // row 3 all zero: out = bias exactly
  for (int64_t k = 32; k < 64; ++k) x[size_t(5 * K + k)] = 0.0f;  // row 5, block 1 zero (scale 0, no NaN)
  x[size_t(7 * K + 40)] = std::numeric_limits<float>::quiet_NaN();
  x[size_t(8 * K + 70)] = std::numeric_limits<float>::infinity();
  L.exe->set_input(L.x, {M, K}, std::span<const float>(x));
  L.exe->execute();
  const std::vector<float> got = L.exe->read_f32(L.out);
  std::vector<float> want = ref::linear(x, L.w, L.bias, M, K, N);
  for (int64_t n = 0; n < N; ++n) {
    EXPECT_EQ(got[size_t(3 * N + n)], L.bias[size_t(n)]) << n;
    EXPECT_TRUE(std::isnan(got[size_t(7 * N + n)])) << n;
    EXPECT_TRUE(std::isnan(got[size_t(8 * N + n)])) << "an inf block gives a NaN scale " << n;
    EXPECT_LE(std::fabs(double(got[size_t(5 * N + n)]) - double(want[size_t(5 * N + n)])), mmq_bound(x, L.w, 5, n, K));
    EXPECT_FALSE(std::isnan(got[size_t(6 * N + n)])) << n;
  }
}

TEST(LinearMmq, PolicyRule) {
  webgpu::DeviceFacts f;
  f.packed_dot = true;
  f.max_storage_binding = 1 << 30;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_min_tiles, 1u);
  f.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_min_tiles, 0u) << "CPU adapters keep their f32 GEMM";
  f.cpu_adapter = false;
  f.packed_dot = false;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.mmq_min_tiles, 0u);
  webgpu::TuningOverrides o;
  o.gemm_mmq_min_tiles = 64;
  EXPECT_EQ(webgpu::Tuning::for_device(f, o).gemm.mmq_min_tiles, 64u);
  auto env = [](const char* v) {
    return webgpu::parse_tuning_env([v](const char* n) { return std::string(n) == "WGRT_GEMM_MMQ" ? v : nullptr; });
  };
  EXPECT_EQ(env("0").gemm_mmq_min_tiles, 0u);
  EXPECT_THROW(env("many"), InvalidArgument);
  EXPECT_THROW(env("-1"), InvalidArgument);
}

// Every tile variant (mmq_test_tiles.h): M 9, 65 and 129 (partial 64- and 128-row tiles, one past them), N 67 and 131 (partial
// 64- and 128-column tiles), K of 3, 7 and 6 blocks (partial slices for KB 2 and 4), G 32 and 64, bias and none,
// f16 scales, and a binding split, all within the activation-rounding bound of the header.
TEST(LinearMmq, EveryTileVariantOddSizes) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  const std::vector<webgpu::MmqTile> tiles = wgrt::test::mmq_tile_variants();
  EXPECT_GE(tiles.size(), 9u) << "all but 128x128 with KB 4 fit 32 KiB of workgroup memory";
  uint32_t seed = 500;
  for (const webgpu::MmqTile& tile : tiles) {
    webgpu::Tuning t = mmq_tuning();
    t.gemm_mmq_forced = tile;
    t.gemm_mmq_pipeline = tile.pf;
    const std::string v =
        fmt::format("tile {}x{} kb {} cvt {} pf {} wg {}", tile.tm, tile.tn, tile.kb, tile.cvt, tile.pf, tile.wg);
    const std::vector<Case> cases = {{129, 96, 67, 32, true}, {129, 224, 131, 32, false}, {65, 192, 131, 64, true}};
    for (const Case& c : cases) {
      Mmq L = make_mmq(c.M, c.K, c.N, c.G, c.bias, seed++, t, c.G == 64);
      for (int64_t M : {c.M, int64_t(9)}) {
        const std::string what = fmt::format("{} M {} K {} N {} G {}", v, M, c.K, c.N, c.G);
        EXPECT_EQ(check_rows(L, M, seed++, what), 0) << what;
      }
    }
    t.max_binding_bytes = 8192;  // 600 rows of 32 B: chunks of 256, 256 and 88 rows
    Mmq L = make_mmq(140, 64, 600, 32, true, seed++, t);
    EXPECT_EQ(check_rows(L, 140, seed++, v + " split"), 0) << v;
  }
}

// The tile rule: 128x128 where the op's largest M gives >= the target workgroups, else 64x128, else 64x64; a
// forced tile everywhere; WGRT_GEMM_MMQ_TILE / _TARGET parse and reject what the kernels cannot run.
TEST(LinearMmq, TileRule) {
  webgpu::DeviceFacts f;
  f.packed_dot = true;
  webgpu::DeviceFacts cpu = f;
  cpu.cpu_adapter = true;
  const webgpu::Tuning c = webgpu::Tuning::for_device(cpu);  // CPU adapters: one tile, 64x128 with 128 invocations
  for (int64_t m : {9, 512, 2048})
    for (int64_t n : {512, 2048, 16384}) EXPECT_EQ(c.gemm_mmq_tile(m, n), (webgpu::MmqTile{64, 128, 2, 1, 0, 128}));
  webgpu::TuningOverrides co;
  co.gemm_mmq_target_workgroups = 0;  // the target is the GPUs' rule
  EXPECT_EQ(webgpu::Tuning::for_device(cpu, co).gemm_mmq_tile(512, 512), (webgpu::MmqTile{64, 128, 2, 1, 0, 128}));
  const webgpu::Tuning t = webgpu::Tuning::for_device(f);  // GPUs: target 2048
  EXPECT_EQ(t.gemm_mmq_target_workgroups, 2048u);
  // GPUs: pipelined, and the last tile with 128 invocations.
  EXPECT_EQ(t.gemm_mmq_tile(512, 16384), (webgpu::MmqTile{64, 64, 2, 1, 1, 128}));  // 8 x 256
  EXPECT_EQ(t.gemm_mmq_tile(512, 2048), (webgpu::MmqTile{64, 64, 2, 1, 1, 128}));   // none reaches it: the last
  EXPECT_EQ(t.gemm_mmq_tile(2048, 8192), (webgpu::MmqTile{64, 128, 2, 1, 1}));      // 32 x 64
  EXPECT_EQ(t.gemm_mmq_tile(2048, 16384), (webgpu::MmqTile{128, 128, 2, 1, 1}));    // 16 x 128
  webgpu::TuningOverrides o;
  o.gemm_mmq_target_workgroups = 0;
  EXPECT_EQ(webgpu::Tuning::for_device(f, o).gemm_mmq_tile(512, 512), (webgpu::MmqTile{128, 128, 2, 1, 1}));
  o.gemm_mmq_tile = webgpu::MmqTile{64, 128, 4};
  EXPECT_EQ(webgpu::Tuning::for_device(f, o).gemm_mmq_tile(4096, 16384), (webgpu::MmqTile{64, 128, 4, 1, 1}));
  auto env = [](const char* var, const char* v) {
    return webgpu::parse_tuning_env([=](const char* n) { return std::string(n) == var ? v : nullptr; });
  };
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_TILE", "64,128").gemm_mmq_tile, (webgpu::MmqTile{64, 128, 2}));
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_TILE", "128,64,4").gemm_mmq_tile, (webgpu::MmqTile{128, 64, 4}));
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_TARGET", "256").gemm_mmq_target_workgroups, 256u);
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_TILE", "64,64,1,0").gemm_mmq_tile, (webgpu::MmqTile{64, 64, 1, 0}));
  for (const char* bad : {"96,128", "64", "64,64,3", "64,64,2,2", "64,64,2,1,0", "big"})
    EXPECT_THROW(env("WGRT_GEMM_MMQ_TILE", bad), InvalidArgument) << bad;
  EXPECT_THROW(env("WGRT_GEMM_MMQ_TARGET", "-1"), InvalidArgument);
  // The pipeline (PF) is the policy's, on the rule's tiles and on a forced one alike.
  o = {};
  o.gemm_mmq_pipeline = 1;
  EXPECT_EQ(webgpu::Tuning::for_device(cpu, o).gemm_mmq_tile(512, 512), (webgpu::MmqTile{64, 128, 2, 1, 1, 128}));
  EXPECT_EQ(webgpu::Tuning::for_device(cpu, o).gemm_mmq_tile(2048, 16384), (webgpu::MmqTile{64, 128, 2, 1, 1, 128}));
  o.gemm_mmq_pipeline = 0;
  o.gemm_mmq_tile = webgpu::MmqTile{64, 128, 4};
  EXPECT_EQ(webgpu::Tuning::for_device(f, o).gemm_mmq_tile(512, 512), (webgpu::MmqTile{64, 128, 4}));
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_PIPELINE", "1").gemm_mmq_pipeline, 1u);
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_PIPELINE", "0").gemm_mmq_pipeline, 0u);
  for (const char* bad : {"2", "on", "1,1"}) EXPECT_THROW(env("WGRT_GEMM_MMQ_PIPELINE", bad), InvalidArgument) << bad;
  // Workgroups of 128 invocations: TM 32 or 64; KB 4 only with TN 64 (the staging holds 2 * WG weight items).
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_TILE", "32,64,2,1,128").gemm_mmq_tile, (webgpu::MmqTile{32, 64, 2, 1, 0, 128}));
  EXPECT_EQ(*env("WGRT_GEMM_MMQ_TILE", "64,64,4,1,128").gemm_mmq_tile, (webgpu::MmqTile{64, 64, 4, 1, 0, 128}));
  for (const char* bad : {"32,64", "128,64,2,1,128", "64,128,4,1,128", "64,64,2,1,64", "32,64,2,1,256"})
    EXPECT_THROW(env("WGRT_GEMM_MMQ_TILE", bad), InvalidArgument) << bad;
}

// A forced tile that needs more workgroup memory than the adapter has is a clear error at graph build.
TEST(LinearMmq, ForcedTileTooBigIsAnError) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  webgpu::Tuning t = mmq_tuning();
  t.gemm_mmq_forced = webgpu::MmqTile{128, 128, 4};
  if (webgpu::PipelineCache::reflect(ops::gemm_mmq_kernel(false, *t.gemm_mmq_forced)).workgroup_bytes <=
      gpu().limits().maxComputeWorkgroupStorageSize)
    GTEST_SKIP() << "the largest tile fits this adapter";
  try {
    make_mmq(140, 64, 60, 32, false, 3, t);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("WGRT_GEMM_MMQ_TILE"), std::string::npos) << e.what();
  }
}

namespace {
// True if a dispatch of `kernel` ran in the last execute (its dump line is neither on an inactive route nor an
// empty grid: the split passes of a route that did not split have grid 0).
bool ran(Mmq& L, const std::string& kernel) {
  const std::string dump = L.exe->dump();
  for (size_t at = dump.find(kernel); at != std::string::npos; at = dump.find(kernel, at + 1)) {
    const std::string line = dump.substr(at, dump.find('\n', at) - at);
    if (line.find("inactive") == std::string::npos && line.find(" grid 0x") == std::string::npos) return true;
  }
  return false;
}
}  // namespace

// Split K (the policy's gemm_mmq_split_target, forced high so every grid splits where K allows): partial sums over
// K ranges, then the reduce pass with the bias. K of 17 blocks (9 two-block slices: splits of 5 and 4 slices, the
// last ending mid-slice), 40 blocks with KB 4 and 128-invocation tiles, odd M and N, G 64, a binding split (one
// partial pass and reduce per chunk), rows that change between executes (the GEMV at 8 rows, then split again),
// and K too short to split (4 slices: the plain kernel). Same bound as the unsplit kernel.
TEST(LinearMmq, SplitKWithinQuantizationBound) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  struct SplitCase {
    Case c;
    webgpu::MmqTile tile;
    bool splits;
  };
  const std::vector<SplitCase> cases = {
      {{129, 544, 67, 32, true}, {64, 64, 2, 1}, true},         {{65, 1280, 131, 64, false}, {64, 64, 4, 1, 0, 128}, true},
      {{200, 544, 301, 32, true}, {128, 128, 2, 1}, true},       {{33, 256, 67, 32, true}, {64, 64, 2, 1}, false},
  };
  uint32_t seed = 900;
  for (const SplitCase& s : cases) {
    for (uint32_t pf : {0u, 1u}) {
      webgpu::Tuning t = mmq_tuning();
      t.gemm_mmq_split_target = 1u << 20;
      t.gemm_mmq_forced = s.tile;
      t.gemm_mmq_pipeline = pf;
      const Case& c = s.c;
      const std::string what =
          fmt::format("split M {} K {} N {} G {} tile {}x{} kb {} wg {} pf {}", c.M, c.K, c.N, c.G, s.tile.tm, s.tile.tn,
                      s.tile.kb, s.tile.wg, pf);
      Mmq L = make_mmq(c.M, c.K, c.N, c.G, c.bias, seed++, t, c.G == 64);
      EXPECT_EQ(check_rows(L, c.M, seed++, what), 0) << what;
      EXPECT_EQ(ran(L, "gemm_splitk_reduce.wgsl"), s.splits) << what;
      EXPECT_EQ(check_rows(L, 8, seed++, what + " M 8"), 0) << what;
      EXPECT_FALSE(ran(L, "gemm_splitk_reduce.wgsl")) << what << ": the GEMV route at 8 rows";
      EXPECT_EQ(check_rows(L, 9, seed++, what + " M 9"), 0) << what;
    }
  }
  webgpu::Tuning t = mmq_tuning();
  t.gemm_mmq_split_target = 1u << 20;
  t.max_binding_bytes = 8192 * 9;  // rows of 272 B: chunks of 256, 256 and 88 rows
  Mmq L = make_mmq(140, 544, 600, 32, true, seed++, t);
  EXPECT_EQ(check_rows(L, 140, seed++, "split K, binding chunks"), 0);
  EXPECT_TRUE(ran(L, "gemm_splitk_reduce.wgsl"));
}

// The split rule: S from the workgroup deficit, capped by kMmqMaxSplits, >= 4 slices per split and the scratch.
TEST(LinearMmq, SplitRule) {
  using ops::mmq_splits;
  EXPECT_EQ(mmq_splits(256, 2048, 2, 512 * 2048, 0, 64 << 20).splits, 1u) << "target 0: off";
  EXPECT_EQ(mmq_splits(2048, 2048, 2, 512 * 2048, 1024, 64 << 20).splits, 1u) << "enough workgroups";
  const ops::MmqSplit a = mmq_splits(256, 2048, 2, 512 * 2048, 1024, 64 << 20);  // 32 slices, 4 splits of 8
  EXPECT_EQ(a.splits, 4u);
  EXPECT_EQ(a.per, 16u);
  EXPECT_EQ(mmq_splits(16, 8192, 2, 512 * 512, 1u << 20, 64 << 20).splits, ops::kMmqMaxSplits);
  EXPECT_EQ(mmq_splits(256, 256, 2, 512 * 2048, 1024, 64 << 20).splits, 1u) << "4 slices: too short";
  EXPECT_EQ(mmq_splits(256, 2048, 2, 512 * 2048, 1024, 512 * 2048 * 4 * 2).splits, 2u) << "the scratch holds 2";
  const ops::MmqSplit b = mmq_splits(1, 544, 2, 100, 1u << 20, 64 << 20);  // 9 slices: 2 splits of 5 and 4
  EXPECT_EQ(b.splits, 2u);
  EXPECT_EQ(b.per, 10u);
  auto env = [](const char* v) {
    return webgpu::parse_tuning_env([v](const char* n) { return std::string(n) == "WGRT_GEMM_MMQ_SPLITK" ? v : nullptr; });
  };
  EXPECT_EQ(*env("1024").gemm_mmq_split_target, 1024u);
  EXPECT_THROW(env("-1"), InvalidArgument);
  EXPECT_THROW(env("x"), InvalidArgument);
}
