// wgrt.linear_q4gsw_fused.default (the q4gsw linear with the RMSNorm before it, a residual add or a GLU after it
// folded in) on a real adapter, against a plain C++ composition of the unfused parts (reference/ops_a_reference.h:
// rms_norm, linear over the dequantized weights, then the GLU or the residual add in double). Odd sizes (N, H
// and K / G odd, N not a multiple of a workgroup's rows), M on the GEMV route (1..8) and the GEMM route, both
// kernels of the GEMV route (f32 decode, int8), the policy's fused_gemv on and off (the fusions inside the GEMV
// dispatch vs their own dispatches), weights split into binding chunks, M changing between executes, bad
// arguments. f16 scales, as the model loaders upload them. Tolerance as linear_test: |d| <= 1e-4 + 1e-3 |ref|.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/q4gsw.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"
#include "util/half.h"
#include "webgpu/device.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::gpu;
namespace ref = wgrt::test::ref;

namespace {

constexpr double kAbs = 1e-4, kRel = 1e-3, kEps = 1e-5;

struct Case {
  int64_t M, K, N, G;
  bool norm, res, bias;
  int act;  // 0 none, 1 silu-GLU, 2 gelu-tanh-GLU
};

std::string name(const Case& c) {
  return fmt::format("M {} K {} N {} G {} norm {} res {} bias {} act {}", c.M, c.K, c.N, c.G, c.norm, c.res, c.bias, c.act);
}

struct Fused {
  std::unique_ptr<ExecutableGraph> exe;
  ValueId x = -1, res = -1, out = -1;
  std::vector<float> w, bias, nw;  // w as the kernel sees it (dequantized with the f16 scales)
};

Fused make_fused(const Case& c, uint32_t seed) {
  Graph g;
  Fused f;
  f.x = g.input("x", DType::F32, {c.M, c.K});
  std::vector<float> w = ref::random_floats(size_t(c.N * c.K), seed, -0.5f, 0.5f);
  ops::Q4gswWeights q = ops::q4gsw_quantize(w, c.N, c.K, c.G);
  std::vector<uint16_t> s16;
  for (float& s : q.scales) s16.push_back(f32_to_f16(s)), s = f16_to_f32(s16.back());
  f.w = ref::q4gsw_decode(q.qweight, q.scales, c.N, c.K, c.G);
  ValueId qw = g.constant("qweight", DType::U32, {c.N, c.K / 8}, ConstantData::from_vector(q.qweight));
  ValueId sc = g.constant("scales", DType::F16, {c.N, c.K / c.G}, ConstantData::from_vector(std::move(s16)));
  ValueId bias = g.none(), nw = g.none(), res = g.none();
  if (c.bias) {
    f.bias = ref::random_floats(size_t(c.N), seed + 1);
    bias = g.constant("bias", DType::F32, {c.N}, ConstantData::from_vector(f.bias));
  }
  if (c.norm) {
    f.nw = ref::random_floats(size_t(c.K), seed + 2, 0.5f, 1.5f);
    nw = g.constant("norm_weight", DType::F32, {c.K}, ConstantData::from_vector(f.nw));
  }
  if (c.res) res = f.res = g.input("residual", DType::F32, {c.M, c.N});
  f.out = g.tensor_like(DType::F32, "out");
  g.op("wgrt.linear_q4gsw_fused.default",
       {f.x, qw, sc, g.int_value(c.G), bias, nw, g.real(kEps), res, g.int_value(c.act), f.out}, "lin");
  g.output(f.out);
  f.exe = ExecutableGraph::build(std::move(g), gpu());
  return f;
}

double glu(int act, double g, double u) {
  if (act == 2) return 0.5 * g * (1.0 + std::tanh(0.7978845608028654 * (g + 0.044715 * g * g * g))) * u;
  return g / (1.0 + std::exp(-g)) * u;
}

// Runs M rows through f and compares with the unfused composition.
void run_and_check(Fused& f, const Case& c, int64_t M, uint32_t seed, const std::string& what) {
  std::vector<float> x = ref::random_floats(size_t(M * c.K), seed + 100, -2.0f, 2.0f);
  f.exe->set_input(f.x, {M, c.K}, std::span<const float>(x));
  std::vector<float> r;
  if (c.res) {
    r = ref::random_floats(size_t(M * c.N), seed + 200);
    f.exe->set_input(f.res, {M, c.N}, std::span<const float>(r));
  }
  f.exe->execute();
  const std::vector<float> h = c.norm ? ref::rms_norm(x, f.nw, c.K, kEps) : x;
  const std::vector<float> y = ref::linear(h, f.w, f.bias, M, c.K, c.N);
  const int64_t Nout = c.act ? c.N / 2 : c.N;
  std::vector<float> want(size_t(M * Nout));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t j = 0; j < Nout; ++j) {
      const size_t o = size_t(m * Nout + j);
      if (c.act) want[o] = float(glu(c.act, y[size_t(m * c.N + j)], y[size_t(m * c.N + Nout + j)]));
      else want[o] = y[o] + (c.res ? r[o] : 0.0f);
    }
  ASSERT_EQ(f.exe->dims(f.out), (Dims{M, Nout})) << what;
  expect_close(f.exe->read_f32(f.out), want, kAbs, kRel, what);
}

const std::vector<Case> kCases = {
    {1, 96, 67, 32, true, false, true, 0},     // q/k/v with a bias (qwen2), 3 groups per row
    {1, 160, 37, 32, false, true, false, 0},   // o-proj / down-proj: residual
    {1, 2048, 600, 32, true, false, false, 1}, // gate/up with SwiGLU, H = 300
    {1, 4096, 74, 64, true, false, false, 2},  // GeGLU, H = 37
    {1, 384, 10, 128, true, false, false, 1},  // H = 5: fewer outputs than a workgroup's
    {1, 8192, 10, 32, true, false, false, 1},  // K 8192: x too large to stage on lavapipe
    {3, 96, 10, 32, true, false, false, 1},    // M > 1 on the GEMV route (grid layers)
    {8, 2048, 67, 64, true, true, false, 0},   // norm and residual together
    {9, 160, 134, 32, true, false, false, 1},  // GEMM route: the norm and the GLU as their own dispatches
    {33, 96, 67, 32, false, true, false, 0},   // GEMM route: the residual as the GEMM's bias term
    {130, 256, 66, 32, true, false, true, 2},  // GEMM route, big tiles on GPUs, GeGLU with a bias
};

using Knobs = std::initializer_list<std::pair<std::string, std::string>>;
webgpu::Tuning tuned(Knobs kv, bool fused_gemv) {
  auto get = [&](const char* n) -> const char* {
    for (const auto& [k, v] : kv)
      if (k == n) return v.c_str();
    return nullptr;
  };
  webgpu::Tuning t = webgpu::Tuning::for_device(gpu().facts(), webgpu::parse_tuning_env(get));
  t.fused_gemv = fused_gemv;
  return t;
}

}  // namespace

TEST(LinearFused, MatchesUnfusedCompositionEveryRoute) {
  std::vector<const char*> routes = {"wg"};
  if (gpu().has_packed_dot()) routes.push_back("i8");
  uint32_t seed = 1;
  for (const char* route : routes)
    for (bool fg : {true, false}) {
      webgpu::ScopedTuning scoped(gpu(), tuned({{"WGRT_GEMV_Q4_ROUTE", route}}, fg));
      for (const Case& c : kCases) {
        // The GEMM route does not depend on the GEMV kernel or fused_gemv: once is enough.
        if (c.M > gpu().tuning().gemv_max_rows && (std::string(route) != "wg" || !fg)) continue;
        Fused f = make_fused(c, seed);
        run_and_check(f, c, c.M, seed++, fmt::format("{} fused_gemv {} {}", route, fg, name(c)));
      }
    }
}

TEST(LinearFused, DecodeIsOneDispatchWhenFused) {
  // M = 1: norm + GEMV + GLU in one dispatch with fused_gemv; three without. Then prefill rows (GEMM route)
  // and decode again on the same graph.
  const Case c{12, 160, 134, 32, true, false, false, 1};
  for (bool fg : {true, false}) {
    Fused f;
    {
      webgpu::ScopedTuning scoped(gpu(), tuned({}, fg));
      f = make_fused(c, 7);
    }
    int step = 0;
    for (int64_t M : {1, 12, 1, 5}) {
      run_and_check(f, c, M, uint32_t(40 + step++), fmt::format("fused_gemv {} M {}", fg, M));
      if (M == 1) EXPECT_EQ(f.exe->dispatch_count(true), fg ? 1u : 3u);
    }
  }
}

// Whether route 4 (the multi-row GEMV shape) is the active route of the graph's linear after the last execute.
bool multi_route_active(const Fused& f) {
  const std::string d = f.exe->dump();
  size_t on = 0, lines = 0;
  for (size_t p = d.find(" route 4"); p != std::string::npos; p = d.find(" route 4", p + 1)) {
    ++lines;
    const size_t eol = d.find('\n', p);
    on += d.compare(p, eol - p, " route 4") == 0;  // nothing after the route: active
  }
  EXPECT_GT(lines, 0u) << "no route 4 dispatch was built";
  return on > 0;
}

TEST(LinearFused, MultiRowShapeFromItsRowCount) {
  // The policy's multi-row GEMV shape (route 4, WGRT_GEMV_Q4_MULTI / _ROWS; on GPUs 16x16x4 from 3 rows) runs
  // for M >= its row count and route 0's shape below, on one graph whose M changes between executes; values as
  // the unfused composition on both routes (residual, GLU pairs, norm + bias; N not a multiple of 64 rows).
  std::vector<const char*> routes = {"wg"};
  if (gpu().has_packed_dot()) routes.push_back("i8");
  const std::vector<Case> cases = {{8, 160, 67, 32, true, true, false, 0}, {8, 256, 134, 32, true, false, false, 1},
                                   {8, 96, 75, 32, true, false, true, 0}};
  // 16x16x4: the GPU rule's shape; 32x8x2: 16 rows per workgroup, where route 0's shape has 64 (CPU adapters)
  // or 16 (int8 on GPUs), so a grid sized for the wrong route's rows shows as missing or extra rows.
  uint32_t seed = 300;
  for (const char* route : routes)
    for (const char* shape : {"16,16,4", "32,8,2"})
      for (const Case& c : cases) {
        const webgpu::Tuning t = tuned({{"WGRT_GEMV_Q4_ROUTE", route}, {"WGRT_GEMV_Q4_MULTI", shape},
                                        {"WGRT_GEMV_Q4_MULTI_ROWS", "3"}}, true);
        if (t.gemv_q4_multi_shape(t.q4_gemv, c.N) == t.gemv_q4_shape(t.q4_gemv, c.N)) continue;  // no route 4
        Fused f;
        {
          webgpu::ScopedTuning scoped(gpu(), t);
          f = make_fused(c, seed);
        }
        for (int64_t M : {1, 2, 3, 8, 5, 1}) {
          const std::string what = fmt::format("{} {} M {} {}", route, shape, M, name(c));
          run_and_check(f, c, M, seed++, what);
          EXPECT_EQ(multi_route_active(f), M >= 3) << what;
        }
      }
  // Without the rule (0) or where the multi-row shape equals route 0's, no second GEMV is built.
  for (bool same : {false, true}) {
    webgpu::Tuning t = tuned({{"WGRT_GEMV_Q4_MULTI_ROWS", same ? "2" : "0"}, {"WGRT_GEMV_Q4_MULTI", "16,16,4"}}, true);
    if (same) t.gemv_q4_multi_forced = t.gemv_q4_shape(t.q4_gemv, cases[0].N);
    webgpu::ScopedTuning scoped(gpu(), t);
    Fused f = make_fused(cases[0], 9);
    EXPECT_EQ(f.exe->dump().find(" route 4"), std::string::npos) << (same ? "the same shape" : "rows 0");
  }
}

TEST(LinearFused, WeightsSplitIntoBindingChunks) {
  // 601 rows of 48 B at a 12 KiB binding limit -> chunks of 256, 256, 89 rows. The residual epilogue works per
  // chunk; the GLU pairs rows across chunks, so it runs as its own dispatch.
  for (int act : {0, 1}) {
    const Case c{1, 96, act ? 602 : 601, 32, true, act == 0, false, act};
    webgpu::Tuning t = tuned({}, true);
    t.max_binding_bytes = 12288;
    Fused f;
    {
      webgpu::ScopedTuning scoped(gpu(), t);
      f = make_fused(c, 17);
    }
    run_and_check(f, c, 1, 3, fmt::format("split act {}", act));
    EXPECT_EQ(f.exe->dispatch_count(true), act ? 4u : 3u);  // 3 GEMV chunks (+ the GLU)
  }
}

TEST(LinearFused, BadArgumentsGiveClearErrors) {
  auto build = [](int64_t nw_len, bool res, bool bias, int act, int64_t N) {
    Graph g;
    const int64_t K = 64;
    ValueId x = g.input("x", DType::F32, {1, K});
    ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(std::vector<uint32_t>(size_t(N * K / 8))));
    ValueId sc = g.constant("scales", DType::F16, {N, K / 32}, ConstantData::from_vector(std::vector<uint16_t>(size_t(N * 2))));
    ValueId nw = nw_len ? g.constant("nw", DType::F32, {nw_len}, ConstantData::from_vector(std::vector<float>(size_t(nw_len)))) : g.none();
    ValueId b = bias ? g.constant("b", DType::F32, {N}, ConstantData::from_vector(std::vector<float>(size_t(N)))) : g.none();
    ValueId r = res ? g.input("r", DType::F32, {1, N}) : g.none();
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("wgrt.linear_q4gsw_fused.default", {x, qw, sc, g.int_value(32), b, nw, g.real(1e-5), r, g.int_value(act), out}, "lin");
    ExecutableGraph::build(std::move(g), gpu());
  };
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([&] { build(63, false, false, 0, 4); }, "norm_weight 'nw' [63] must be [64]");
  expect_error<InvalidArgument>([&] { build(64, true, false, 1, 4); }, "a residual with a GLU activation is not supported");
  expect_error<InvalidArgument>([&] { build(0, true, true, 0, 4); }, "a residual with a bias is not supported");
  expect_error<InvalidArgument>([&] { build(0, false, false, 3, 4); }, "act must be 0 (none), 1 (silu GLU) or 2");
  expect_error<InvalidArgument>([&] { build(64, false, false, 1, 5); }, "a GLU needs an even number of weight rows");
}
