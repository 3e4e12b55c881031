// aten.linear.default and et_vk.linear_q4gsw.default on a real adapter, against the double-accumulating C++
// reference (reference/ops_a_reference.h) and PyTorch goldens. Both routes (GEMV for M = 1, tiled GEMM for
// M > 1) on odd sizes, bias / no bias, M changing between executes, weights split into binding chunks.
// Tolerance (f32 and q4 alike; q4 is compared with the same dequantized weights): |d| <= 1e-4 + 1e-3 |ref|.
// q4 runs with f32 scales (the et_vk op's form) and with f16 scales (what the GGUF loader uploads), the reference
// then decoding with the f16-rounded scales.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/q4gsw.h"
#include "util/half.h"
#include "webgpu/pipeline_cache.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::gpu;
namespace ref = wgrt::test::ref;

namespace {

constexpr double kAbs = 1e-4, kRel = 1e-3;

// q4 scales uploaded as f16 (DType::F16) instead of f32 while a ScopedF16Scales lives.
bool g_f16_scales = false;
struct ScopedF16Scales {
  ScopedF16Scales() { g_f16_scales = true; }
  ~ScopedF16Scales() { g_f16_scales = false; }
};

struct LinearGraph {
  std::unique_ptr<ExecutableGraph> exe;
  ValueId x = -1, out = -1;
  std::vector<float> w;  // [N, K] as the kernel sees it (dequantized for q4)
  std::vector<float> bias;
};

// x: input of dims lead + [K]; weights random (q4: quantized, G = group).
// w_given: the [N, K] weights to use instead of random ones (before q4 quantization).
LinearGraph make_linear(bool q4, Dims xdims, int64_t N, bool with_bias, int64_t G = 32, uint32_t seed = 1,
                        const std::vector<float>* w_given = nullptr) {
  const int64_t K = xdims.back();
  Graph g;
  LinearGraph L;
  L.x = g.input("x", DType::F32, xdims);
  std::vector<float> w = w_given ? *w_given : ref::random_floats(size_t(N * K), seed, -0.5f, 0.5f);
  ValueId bias = g.none();
  if (with_bias) {
    L.bias = ref::random_floats(size_t(N), seed + 7, -1.0f, 1.0f);
    bias = g.constant("bias", DType::F32, {N}, ConstantData::from_vector(L.bias));
  }
  L.out = g.tensor_like(DType::F32, "out");
  if (q4) {
    ops::Q4gswWeights q = ops::q4gsw_quantize(w, N, K, G);
    std::vector<uint16_t> s16;
    if (g_f16_scales)
      for (float& s : q.scales) s16.push_back(f32_to_f16(s)), s = f16_to_f32(s16.back());
    L.w = ref::q4gsw_decode(q.qweight, q.scales, N, K, G);
    ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(q.qweight));
    ValueId sc = g_f16_scales ? g.constant("scales", DType::F16, {N, K / G}, ConstantData::from_vector(std::move(s16)))
                              : g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(q.scales));
    g.op("et_vk.linear_q4gsw.default", {L.x, qw, sc, g.int_value(G), bias, L.out}, "lin");
  } else {
    L.w = w;
    ValueId wt = g.constant("weight", DType::F32, {N, K}, ConstantData::from_vector(w));
    g.op("aten.linear.default", {L.x, wt, bias, L.out}, "lin");
  }
  g.output(L.out);
  L.exe = ExecutableGraph::build(std::move(g), gpu());
  return L;
}

void run_and_check(LinearGraph& L, Dims xdims, int64_t N, uint32_t seed, const std::string& what) {
  const int64_t K = xdims.back(), M = numel(xdims) / K;
  std::vector<float> x = ref::random_floats(size_t(M * K), seed + 100);
  L.exe->set_input(L.x, xdims, std::span<const float>(x));
  L.exe->execute();
  Dims od = xdims;
  od.back() = N;
  ASSERT_EQ(L.exe->dims(L.out), od) << what;
  expect_close(L.exe->read_f32(L.out), ref::linear(x, L.w, L.bias, M, K, N), kAbs, kRel, what);
}

struct Case {
  int64_t M, K, N;
  bool bias;
  int64_t G = 32;
};

const std::vector<Case> kCases = {
    {1, 32, 1, false},    {1, 96, 5, true},      {1, 160, 67, false},    {1, 2048, 300, true},
    {2, 32, 67, true},    {7, 96, 300, false},   {33, 160, 5, true},     {128, 2048, 67, false},
    {7, 2048, 1, true},   {33, 2048, 300, false}, {128, 96, 300, true},  {2, 160, 1, false},
    {1, 2048, 67, false, 64}, {1, 2048, 5, true, 128}, {33, 2048, 67, true, 128}, {7, 2048, 300, false, 64},
};

std::string name(bool q4, const Case& c) {
  return fmt::format("{} M {} K {} N {} G {} bias {}", q4 ? "q4gsw" : "f32", c.M, c.K, c.N, c.G, c.bias);
}

}  // namespace

TEST(Linear, F32OddSizesBothRoutes) {
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    if (c.G != 32) continue;
    LinearGraph L = make_linear(false, {c.M, c.K}, c.N, c.bias, 32, seed);
    run_and_check(L, {c.M, c.K}, c.N, seed++, name(false, c));
  }
}

TEST(Linear, F32KNotMultipleOf4UsesGemmForDecode) {
  for (Case c : {Case{1, 33, 5, true}, Case{3, 7, 9, false}, Case{1, 1, 3, false}}) {
    LinearGraph L = make_linear(false, {1, c.M, c.K}, c.N, c.bias, 32, 3);
    run_and_check(L, {1, c.M, c.K}, c.N, 3, name(false, c));
  }
}

TEST(Linear, Q4gswOddSizesGroupsBothRoutes) {
  uint32_t seed = 11;
  for (const Case& c : kCases) {
    LinearGraph L = make_linear(true, {c.M, c.K}, c.N, c.bias, c.G, seed);
    run_and_check(L, {c.M, c.K}, c.N, seed++, name(true, c));
  }
}

TEST(Linear, Q4gswF16ScalesOddSizesGroupsBothRoutes) {
  // Odd group counts per row (K / G = 3, 5: rows start mid-word in the packed pairs) and odd N, GEMV and GEMM.
  ScopedF16Scales f16;
  uint32_t seed = 61;
  for (const Case& c : kCases) {
    LinearGraph L = make_linear(true, {c.M, c.K}, c.N, c.bias, c.G, seed);
    run_and_check(L, {c.M, c.K}, c.N, seed++, "f16 scales " + name(true, c));
  }
}

// The device's tuning policy rebuilt with the given WGRT_* tuning variables (parsed as the device parses its
// environment, which is not touched), for the lifetime of the object (the linear op reads it at build).
using Knobs = std::initializer_list<std::pair<std::string, std::string>>;
webgpu::Tuning tuned(Knobs kv) {
  auto get = [&](const char* name) -> const char* {
    for (const auto& [k, v] : kv)
      if (k == name) return v.c_str();
    return nullptr;
  };
  return webgpu::Tuning::for_device(gpu().facts(), webgpu::parse_tuning_env(get));
}
struct ScopedEnv {
  webgpu::ScopedTuning scoped;
  ScopedEnv(Knobs kv) : scoped(gpu(), tuned(kv)) {}
};

// Decode (M = 1) cases for the q4 GEMV kernels: odd N (fewer rows than a workgroup, not a multiple of it),
// K of 1 .. 128 vec4 steps (fewer and more steps than lanes), every group size.
const std::vector<Case> kGemvCases = {
    {1, 32, 1, true},     {1, 96, 5, false},     {1, 160, 67, true},   {1, 2048, 300, false},
    {1, 4096, 37, true},  {1, 1056, 129, false}, {1, 2048, 67, true, 64}, {1, 4096, 5, false, 128},
    {1, 384, 33, true, 128},
    {1, 8192, 5, true},  // staged-x shapes: K * 4 bytes exceed lavapipe's 32 KiB workgroup memory, x is read directly
    {3, 160, 67, true},  // M > 1 on the GEMV route: one grid layer per row of x (each stages its own row)
    {8, 2048, 37, false},
};

void check_gemv_cases(const std::string& tag, uint32_t seed) {
  for (const Case& c : kGemvCases) {
    LinearGraph L = make_linear(true, {c.M, c.K}, c.N, c.bias, c.G, seed);
    run_and_check(L, {c.M, c.K}, c.N, seed++, tag + " " + name(true, c));
  }
}

TEST(Linear, Q4gswGemvWorkgroupRouteShapes) {
  // The workgroup-memory kernel (the route on devices without subgroups), at its default and other shapes.
  for (const char* shape : {"", "64,4,4", "16,8,8", "32,8,2", "8,32,1", "256,1,8", "64,4,4,1", "16,8,8,1", "32,8,8,1",
                            "32,8,2,1", "8,32,1,1", "256,1,8,1"}) {
    ScopedEnv env{{"WGRT_GEMV_Q4_ROUTE", "wg"}, {"WGRT_GEMV_Q4", shape}};
    check_gemv_cases(fmt::format("wg route shape '{}'", shape), 300);
  }
}

TEST(Linear, Q4gswF16ScalesEveryGemvRoute) {
  ScopedF16Scales f16;
  for (const char* route : {"wg", "i8", "sg"}) {
    if (std::string(route) == "i8" && !gpu().has_packed_dot()) continue;
    if (std::string(route) == "sg" && !gpu().has_subgroups()) continue;
    ScopedEnv env{{"WGRT_GEMV_Q4_ROUTE", route}};
    check_gemv_cases(fmt::format("f16 scales {} route", route), 700);
  }
}

TEST(Linear, Q4gswGemvInt8RouteShapes) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // The packed-int8 kernel (x in block fixed point, gemv_q4_i8.wgsl) at its default and other shapes, with the
  // same cases and tolerance as the f32 kernels. K 8192 does not fit lavapipe's 32 KiB of workgroup memory
  // (132 bytes per 32 k + the reduction buffer) and runs the f32 kernel instead; K 4096 fits.
  // Shapes: lavapipe's default (16,8,8), the GPU rule's two (8,32,4 and 32,8,2), one row per invocation, one
  // row lane.
  for (const char* shape : {"", "8,32,4", "32,8,2", "8,32,1", "256,1,8"}) {
    ScopedEnv env{{"WGRT_GEMV_Q4_ROUTE", "i8"}, {"WGRT_GEMV_Q4", shape}};
    check_gemv_cases(fmt::format("i8 route shape '{}'", shape), 900);
  }
}

namespace {

struct GemvRun {
  std::vector<float> got, want, w;  // out, the double reference, the dequantized weights [N, K]
};

// One M = 1 q4 GEMV (G = 32) on the given route with x given (and optionally the weights); `w` of the result holds
// the weights as the kernel sees them (dequantized).
GemvRun gemv_run(const char* route, const std::vector<float>& x, int64_t N, uint32_t seed,
                 const std::vector<float>* w = nullptr) {
  ScopedEnv env{{"WGRT_GEMV_Q4_ROUTE", route}};
  const int64_t K = int64_t(x.size());
  LinearGraph L = make_linear(true, {1, K}, N, false, 32, seed, w);
  L.exe->set_input(L.x, {1, K}, std::span<const float>(x));
  L.exe->execute();
  return {L.exe->read_f32(L.out), ref::linear(x, L.w, {}, 1, K, N), L.w};
}


}  // namespace

TEST(Linear, Q4gswGemvInt8KeepsF32Accuracy) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // x near 1 with steps of 2^-19: a 16-bit fixed point (two byte planes) would be off by ~1e-4 here; the
  // 22-bit blocks of the i8 kernel must stay as close to the double reference as the f32 kernel, whose own
  // error is f32 rounding. Tolerance for both: |d| <= 2e-5 + 1e-5 |ref|.
  const int64_t K = 512, N = 37;
  std::vector<float> x(static_cast<size_t>(K));
  for (int64_t k = 0; k < K; ++k) x[size_t(k)] = float((k % 3 ? 1.0 : -1.0) * (1.0 + double((k * 7) % 61) * 0x1p-19));
  for (const char* route : {"wg", "i8"}) {
    const GemvRun r = gemv_run(route, x, N, 41);
    expect_close(r.got, r.want, 2e-5, 1e-5, fmt::format("route {} x near 1", route));
  }
}

TEST(Linear, Q4gswGemvInt8EdgeValues) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // Per 32-k block of x: zeros; one huge value among small ones (1e30 and 1e-3: the small ones keep ~2^-22
  // of the block's largest, as f32 arithmetic next to 1e30 would); exact powers of two (the largest at the
  // top of the 22-bit range); a negative largest; tiny values (2^-100, still full precision). Tolerance
  // relative only (|d| <= 1e-3 |ref|, no absolute part), so the tiny block cannot pass by being ~0.
  const int64_t K = 192, N = 21;
  std::vector<float> x(size_t(K), 0.0f);
  const std::vector<float> r = ref::random_floats(size_t(K), 77);
  for (int64_t k = 32; k < 64; ++k) x[size_t(k)] = k == 40 ? 1e30f : 1e-3f * r[size_t(k)];
  for (int64_t k = 64; k < 96; ++k) x[size_t(k)] = std::ldexp(1.0f, int(k % 7) - 3) * (k % 2 ? 1.0f : -1.0f);
  for (int64_t k = 96; k < 128; ++k) x[size_t(k)] = r[size_t(k)] * (k == 100 ? 3.0f : 1.0f) - (k == 100 ? 5.0f : 0.0f);
  for (int64_t k = 128; k < 160; ++k) x[size_t(k)] = std::ldexp(r[size_t(k)], -100);
  for (int64_t k = 160; k < 192; ++k) x[size_t(k)] = r[size_t(k)];
  {
    const GemvRun r = gemv_run("i8", x, N, 43);
    expect_close(r.got, r.want, 0.0, 1e-3, "i8 edge blocks");
  }
  {  // only the tiny block: the outputs are ~1e-31, still within 1e-3 relative (on an H200, which flushes
     // subnormals, this failed while the kernel formed weight scale * 2^-e, ~2^-125, before the block sum)
    std::vector<float> t(size_t(K), 0.0f);
    for (int64_t k = 128; k < 160; ++k) t[size_t(k)] = x[size_t(k)];
    const GemvRun r = gemv_run("i8", t, N, 44);
    expect_close(r.got, r.want, 0.0, 1e-3, "i8 tiny block alone");
  }
  // A NaN in x makes every output NaN, as in f32 arithmetic. An infinite x makes them NaN too (the block's
  // scale is NaN), where f32 arithmetic gives +-inf for rows whose weight there is not 0: either way no finite
  // value comes out of a block holding inf.
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::vector<float> b = x;
    b[5] = bad;
    const GemvRun r = gemv_run("i8", b, N, 45);
    int nan = 0;
    for (float v : r.got) nan += std::isnan(v);
    EXPECT_EQ(nan, int(N)) << "x[5] = " << bad;
  }
}

TEST(Linear, Q4gswGemvInt8OutlierErrorWithinBlockBound) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // A block holding an outlier A rounds its other values to 2^-22 A (the kernel header's bound), which shows
  // where the outlier's weight is 0: here every row has weight 0 at k 10, beside x ~ U(-1, 1). The i8 kernel must
  // stay within 2^-22 * max_block |x| * sum_block |w| per block (+ 1e-6 of sum |x w| for f32 accumulation), and
  // for A = 1e4 it must be measurably coarser than f32 there (the f32-decode kernel stays at 1e-5 relative),
  // so the test shows the bound is real, not loose.
  const int64_t K = 128, N = 16;
  std::vector<float> w = ref::random_floats(size_t(N * K), 61, -0.5f, 0.5f);
  for (int64_t n = 0; n < N; ++n) w[size_t(n * K + 10)] = 0.0f;
  for (float A : {1e2f, 1e4f, 1e30f}) {
    std::vector<float> x = ref::random_floats(size_t(K), 62);
    x[10] = A;
    GemvRun i8 = gemv_run("i8", x, N, 63, &w), wg = gemv_run("wg", x, N, 63, &w);
    int coarse = 0;
    for (int64_t n = 0; n < N; ++n) {
      double bound = 0, sum_abs = 0;
      for (int64_t b = 0; b < K / 32; ++b) {
        double amax = 0, wsum = 0;
        for (int64_t k = b * 32; k < b * 32 + 32; ++k) {
          amax = std::max(amax, std::fabs(double(x[size_t(k)])));
          wsum += std::fabs(double(i8.w[size_t(n * K + k)]));
          sum_abs += std::fabs(double(x[size_t(k)]) * double(i8.w[size_t(n * K + k)]));
        }
        bound += std::ldexp(amax, -22) * wsum;
      }
      const double d8 = std::fabs(double(i8.got[size_t(n)]) - i8.want[size_t(n)]);
      const double dw = std::fabs(double(wg.got[size_t(n)]) - wg.want[size_t(n)]);
      EXPECT_LE(d8, bound + 1e-6 * sum_abs) << "i8 A " << A << " row " << n;
      EXPECT_LE(dw, 1e-5 * sum_abs) << "wg A " << A << " row " << n;
      coarse += d8 > 1e-5 * sum_abs;
    }
    if (A == 1e4f) EXPECT_GT(coarse, 0) << "the outlier left no trace: is the i8 route running?";
  }
}

TEST(Linear, Q4gswGemvInt8WorkgroupMemoryFit) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed_4x8_integer_dot_product";
  // K around the largest that fits the device's workgroup memory as the kernel's WGSL declares it (132 bytes per
  // 32 k beside the reduction buffer, reflected): every K must build and compute correctly, the kernel falling
  // back to the f32-decode one where the i8 one does not fit (an undercounted fit once failed pipeline creation
  // here). Which kernel ran is told by an inf in x: the i8 kernel gives NaN outputs, the f32 one +-inf.
  const uint64_t limit = gpu().limits().maxComputeWorkgroupStorageSize;
  const webgpu::GemvQ4Shape q = tuned({{"WGRT_GEMV_Q4_ROUTE", "i8"}}).gemv_q4_shape(webgpu::Q4GemvKernel::Int8, 5);
  auto i8_bytes = [&](int64_t blocks) {
    return webgpu::PipelineCache::reflect({"ops/linear/gemv_q4_i8.wgsl", "main",
                                           {{"RPT", double(q.rpt)}, {"TK", double(q.tk)}, {"TR", double(q.tr)},
                                            {"XB", double(blocks)}}, {}}).workgroup_bytes;
  };
  int64_t b0 = 1;
  while (i8_bytes(b0 + 1) <= limit) ++b0;
  // The reflection against the kernel header's count: per block 96 bytes of planes, 16 of word sums, 16 of word
  // exponents and 4 of scale, plus [TR * RPT][TK + 1] floats; each variable rounded up to 16 bytes.
  auto r16 = [](uint64_t v) { return (v + 15) / 16 * 16; };
  EXPECT_EQ(i8_bytes(b0), 128 * uint64_t(b0) + r16(4 * uint64_t(b0)) + r16(uint64_t(q.tr) * q.rpt * (q.tk + 1) * 4));
  int i8_runs = 0, wg_runs = 0;
  for (int64_t blocks = b0 - 2; blocks <= b0 + 2; ++blocks) {
    const int64_t K = blocks * 32, N = 5;
    std::vector<float> x = ref::random_floats(size_t(K), uint32_t(blocks));
    const GemvRun r = gemv_run("i8", x, N, 71);
    expect_close(r.got, r.want, kAbs, kRel, fmt::format("K {}", K));
    x[3] = std::numeric_limits<float>::infinity();
    (std::isnan(gemv_run("i8", x, N, 71).got[0]) ? i8_runs : wg_runs)++;
  }
  EXPECT_GT(i8_runs, 0);
  EXPECT_GT(wg_runs, 0);
}

TEST(Linear, Q4gswGemvSubgroupRouteShapes) {
  if (!gpu().has_subgroups()) GTEST_SKIP() << "adapter has no subgroups";
  // The subgroup kernel at its shape rule's choice and forced shapes: one or several row blocks per
  // subgroup (BW above and below the subgroup count), K split across subgroups (KS > 1), 1..8 rows per block.
  for (const char* shape : {"", "4,8,1", "1,8,1", "2,4,2", "8,2,4", "3,16,4", "1,64,1", "5,1,1"}) {
    ScopedEnv env{{"WGRT_GEMV_Q4_ROUTE", "sg"}, {"WGRT_GEMV_Q4_SG", shape}};
    check_gemv_cases(fmt::format("sg route shape '{}'", shape), 400);
  }
}

TEST(Linear, MalformedGemvKnobsAreRejected) {
  // Values that wrapped around in 32-bit products (and once ran a kernel that never ended), signs, trailing text,
  // out-of-range fields: a clear error naming the variable and its value, before any kernel runs.
  const std::vector<std::pair<std::string, std::vector<const char*>>> bad = {
      {"WGRT_GEMV_Q4", {"-1,-200,1", "4294967295,4294967295,1", "65537,1,1", "16,8,8junk", "16,8,3", "16,8,8,2",
                        " 16,8,8", "16,,8", ",", "abc", "16,32,8"}},
      {"WGRT_GEMV_Q4_SG", {"1,-1,-1", "4294967295,1,1", "8,8,8,8", "9,1,1", "1,65,1"}},
      {"WGRT_GEMV_Q4_ROUTE", {"WG", "int8", "wg "}},
      {"WGRT_MAX_BINDING_BYTES", {"0", "-5", "64k", "1e9"}}};
  for (const auto& [var, values] : bad)
    for (const char* v : values) {
      try {
        tuned({{var, v}});
        ADD_FAILURE() << var << "=" << v << " accepted";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(fmt::format("{}='{}' is malformed", var, v)), std::string::npos) << e.what();
      }
    }
  // Well-formed values are taken; empty is unset.
  EXPECT_EQ(tuned({{"WGRT_GEMV_Q4", "16,8,8,1"}}).gemv_q4_forced, (webgpu::GemvQ4Shape{16, 8, 8, 1}));
  EXPECT_EQ(tuned({{"WGRT_GEMV_Q4_ROUTE", "wg"}}).q4_gemv, webgpu::Q4GemvKernel::Workgroup);
  EXPECT_EQ(tuned({{"WGRT_MAX_BINDING_BYTES", "8192"}}).max_binding_bytes, 8192u);
  EXPECT_FALSE(tuned({{"WGRT_GEMV_Q4", ""}}).gemv_q4_forced.has_value());
}

TEST(Linear, GemvPolicyRules) {
  // The shape tables by adapter and N (webgpu/tuning.h), independent of the device running the tests.
  webgpu::DeviceFacts gpu_facts;
  gpu_facts.packed_dot = true;
  const webgpu::Tuning g = webgpu::Tuning::for_device(gpu_facts);
  EXPECT_EQ(g.q4_gemv, webgpu::Q4GemvKernel::Int8);
  EXPECT_EQ(g.gemv_q4_shape(webgpu::Q4GemvKernel::Int8, 128256), (webgpu::GemvQ4Shape{8, 32, 4, 0}));
  EXPECT_EQ(g.gemv_q4_shape(webgpu::Q4GemvKernel::Int8, 2048), (webgpu::GemvQ4Shape{32, 8, 2, 0}));
  EXPECT_EQ(g.gemv_q4_shape(webgpu::Q4GemvKernel::Workgroup, 32768), (webgpu::GemvQ4Shape{32, 8, 8, 1}));
  EXPECT_EQ(g.gemv_q4_shape(webgpu::Q4GemvKernel::Workgroup, 2048), (webgpu::GemvQ4Shape{64, 4, 4, 1}));
  EXPECT_EQ(g.gemv_q4_sg_shape(128256, 2048), (webgpu::GemvQ4SgShape{4, 8, 1}));
  EXPECT_EQ(g.gemv_q4_sg_shape(2048, 8192), (webgpu::GemvQ4SgShape{1, 4, 2}));
  webgpu::DeviceFacts cpu_facts = gpu_facts;
  cpu_facts.cpu_adapter = true;
  const webgpu::Tuning c = webgpu::Tuning::for_device(cpu_facts);
  EXPECT_EQ(c.q4_gemv, webgpu::Q4GemvKernel::Workgroup);
  EXPECT_TRUE(g.fused_gemv);
  EXPECT_FALSE(c.fused_gemv);
  EXPECT_EQ(c.gemv_q4_shape(webgpu::Q4GemvKernel::Workgroup, 128256), (webgpu::GemvQ4Shape{16, 8, 8, 0}));
  // Several rows of x: GPUs with the int8 kernel take 16x16x4 from 3 rows; CPU adapters keep one shape.
  EXPECT_EQ(g.gemv_q4_multi_min_rows, 3);
  EXPECT_EQ(g.gemv_q4_multi_shape(webgpu::Q4GemvKernel::Int8, 2048), (webgpu::GemvQ4Shape{16, 16, 4, 0}));
  EXPECT_EQ(g.gemv_q4_multi_shape(webgpu::Q4GemvKernel::Int8, 128256), (webgpu::GemvQ4Shape{16, 16, 4, 0}));
  EXPECT_EQ(g.gemv_q4_multi_shape(webgpu::Q4GemvKernel::Workgroup, 2048), g.gemv_q4_shape(webgpu::Q4GemvKernel::Workgroup, 2048));
  EXPECT_EQ(c.gemv_q4_multi_min_rows, 0);
  EXPECT_EQ(c.gemv_q4_multi_shape(webgpu::Q4GemvKernel::Workgroup, 2048), (webgpu::GemvQ4Shape{16, 8, 8, 0}));
}

TEST(Linear, MChangesBetweenExecutesOnOneGraph) {
  for (bool q4 : {false, true}) {
    const int64_t K = 160, N = 67;
    LinearGraph L = make_linear(q4, {1, 33, K}, N, true, 32, 5);
    int step = 0;
    for (int64_t M : {7, 1, 33, 1, 2}) {
      run_and_check(L, {1, M, K}, N, uint32_t(50 + step++), fmt::format("{} M {}", q4 ? "q4" : "f32", M));
    }
    EXPECT_EQ(L.exe->dispatch_count(true), 1u);  // one route active
  }
}

TEST(Linear, WeightsSplitIntoBindingChunks) {
  // 600 rows with a 64 KiB binding limit: f32 rows of 256 B -> chunks of 256, 256, 88 rows; q4 rows of 32 B at
  // a 8 KiB limit -> the same split. Each chunk is its own dispatch per route.
  for (bool q4 : {false, true}) {
    webgpu::Tuning t = gpu().tuning();
    t.max_binding_bytes = q4 ? 8192 : 65536;
    const int64_t K = 64, N = 600;
    LinearGraph L;
    {
      webgpu::ScopedTuning scoped(gpu(), t);
      L = make_linear(q4, {9, K}, N, true, 32, 9);
    }
    EXPECT_EQ(L.exe->dispatch_count(false), 6u);  // 3 chunks x 2 routes
    run_and_check(L, {1, K}, N, 21, q4 ? "q4 split M 1" : "f32 split M 1");
    run_and_check(L, {9, K}, N, 22, q4 ? "q4 split M 9" : "f32 split M 9");
  }
  // f16 scales, 3 per row (6 bytes): 601 rows of 48 B at a 12 KiB limit -> chunks of 256, 256, 89 rows; each
  // chunk's scales start on a word, the last one's 534 bytes are bound as 536 (the buffer's padding).
  ScopedF16Scales f16;
  webgpu::Tuning t = gpu().tuning();
  t.max_binding_bytes = 12288;
  const int64_t K = 96, N = 601;
  LinearGraph L;
  {
    webgpu::ScopedTuning scoped(gpu(), t);
    L = make_linear(true, {9, K}, N, true, 32, 10);
  }
  EXPECT_EQ(L.exe->dispatch_count(false), 6u);
  run_and_check(L, {1, K}, N, 23, "q4 f16 split M 1");
  run_and_check(L, {9, K}, N, 24, "q4 f16 split M 9");
}

TEST(Linear, BadArgumentsGiveClearErrors) {
  auto build_q4 = [](int64_t K, int64_t G, Dims qdims, Dims sdims) {
    Graph g;
    ValueId x = g.input("x", DType::F32, {2, K});
    ValueId qw = g.constant("qweight", DType::U32, qdims, ConstantData::from_vector(std::vector<uint32_t>(size_t(numel(qdims)))));
    ValueId sc = g.constant("scales", DType::F32, sdims, ConstantData::from_vector(std::vector<float>(size_t(numel(sdims)))));
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("et_vk.linear_q4gsw.default", {x, qw, sc, g.int_value(G), g.none(), out}, "lin");
    ExecutableGraph::build(std::move(g), gpu());
  };
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([&] { build_q4(96, 64, {4, 12}, {4, 1}); }, "must be a multiple of group_size 64");
  expect_error<InvalidArgument>([&] { build_q4(100, 32, {4, 12}, {4, 3}); }, "must be a multiple of group_size 32");
  expect_error<InvalidArgument>([&] { build_q4(96, 48, {4, 12}, {4, 2}); }, "group_size must be 32, 64 or 128");
  expect_error<InvalidArgument>([&] { build_q4(96, 32, {4, 11}, {4, 3}); }, "u32 words for K = 96");
  expect_error<InvalidArgument>([&] { build_q4(96, 32, {4, 12}, {4, 2}); }, "scales 'scales' [4, 2] must be [4, 3]");
  {
    Graph g;
    ValueId x = g.input("x", DType::F32, {2, 10});
    ValueId w = g.constant("w", DType::F32, {3, 11}, ConstantData::from_vector(std::vector<float>(33)));
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("aten.linear.default", {x, w, g.none(), out}, "lin");
    expect_error<InvalidArgument>([&] { ExecutableGraph::build(std::move(g), gpu()); }, "weight 'w' [3, 11] must be [N, 10]");
  }
  {  // live K must not change
    LinearGraph L = make_linear(false, {4, 8}, 3, false);
    std::vector<float> x(12);
    L.exe->set_input(L.x, {3, 4}, std::span<const float>(x));
    expect_error<InvalidArgument>([&] { L.exe->execute(); }, "the last dim must stay 8 (K)");
  }
}

TEST(Linear, Q4gswMatchesPyTorchGoldens) {
  const nlohmann::json m = wgrt::test::read_golden_manifest();
  int n = 0;
  for (const auto& c : m["linear_q4gsw"]) {
    const int64_t M = c["M"], K = c["K"], N = c["N"], G = c["G"];
    Graph g;
    ValueId x = g.input("x", DType::F32, {M, K});
    auto qv = wgrt::test::read_golden_bin<uint32_t>(c["qweight"]);
    auto sv = wgrt::test::read_golden_bin<float>(c["scales"]);
    ASSERT_EQ(int64_t(qv.size()), N * K / 8);
    ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(qv));
    ValueId sc = g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(sv));
    ValueId bias = g.none();
    if (c.contains("bias"))
      bias = g.constant("bias", DType::F32, {N}, ConstantData::from_vector(wgrt::test::read_golden_bin<float>(c["bias"])));
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("et_vk.linear_q4gsw.default", {x, qw, sc, g.int_value(G), bias, out}, "lin");
    g.output(out);
    auto exe = ExecutableGraph::build(std::move(g), gpu());
    auto xv = wgrt::test::read_golden_bin<float>(c["x"]);
    exe->set_input(x, {M, K}, std::span<const float>(xv));
    exe->execute();
    expect_close(exe->read_f32(out), wgrt::test::read_golden_bin<float>(c["out"]), kAbs, kRel, c["name"]);
    ++n;
  }
  EXPECT_GE(n, 3);
}
