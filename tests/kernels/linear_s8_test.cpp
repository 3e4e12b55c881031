// The stream q4gsw GEMV (gemv_q4_s8.wgsl: x per block of 32 k in 3 byte planes (22-bit, the default) or 1
// (int8, scale d = max|x| / 127), subgroup reductions) on a real adapter, through et_vk.linear_q4gsw.default and wgrt.linear_q4gsw_fused.default,
// against a double C++ reference: the dequantized weights (f16 or f32 scales) times x (RMS-normalized in double
// when the norm is fused), then the residual or the GLU.
// Tolerance, derived from the kernel's rounding: x[k] is replaced by q[k] d with |x[k] - q[k] d| <= d / 2, so a
// row y[n] is off by at most B[n] = sum_blocks r max_block |x'| * sum_block |W[n][k]|, r = 1 / 254 for one
// plane (d = max / 127), 2^-22 for three (d <= 2^-21 max); allowed:
// 1.001 B[n] + 1e-5 sum_k |x'[k] W[n][k]| + 1e-5 (f32 accumulation, the f32 norm). Through a GLU out = act(g) u:
// |d| <= (|act(g)| + 1.13 B_g) B_u + 1.13 B_g |u| (|act'| <= 1.13 for silu and gelu-tanh) + the same f32 terms.
// Each one-plane case also checks that its error is not f32-small where the bound is large (the s8 kernel ran,
// not a fallback) and the mutation below shows the bound catches a one-code weight error.
// Sizes: K = 32 (one block), 32 * odd, up to 8192; N = 1, 7, 31, 33, 129 and more, past the workgroup-count
// fold (65,535 workgroups); M = 1..8 (grid layers); G 32/64/128; weights split into binding chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/q4gsw.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"
#include "util/half.h"
#include "webgpu/device.h"

using namespace wgrt;
using wgrt::test::gpu;
namespace ref = wgrt::test::ref;

namespace {

constexpr double kEps = 1e-5;

struct Case {
  int64_t M, K, N, G = 32;
  bool bias = false, norm = false, res = false;
  int act = 0;  // 0 none, 1 silu-GLU, 2 gelu-tanh-GLU
  bool f16 = true;
  const char* shape = "";  // WGRT_GEMV_Q4_S8 ("" = the policy's rule)
};

// Byte planes of x at c's shape (the rule's: 3).
int planes(const Case& c) {
  unsigned rpt = 0, tr = 0, u = 0, pl = 3;
  std::sscanf(c.shape, "%u,%u,%u,%u", &rpt, &tr, &u, &pl);
  return int(pl);
}

std::string name(const Case& c) {
  return fmt::format("s8 '{}' M {} K {} N {} G {} bias {} norm {} res {} act {} f16 {}", c.shape, c.M, c.K, c.N, c.G,
                     c.bias, c.norm, c.res, c.act, c.f16);
}

using Knobs = std::initializer_list<std::pair<std::string, std::string>>;
webgpu::Tuning tuned(Knobs kv) {
  auto get = [&](const char* n) -> const char* {
    for (const auto& [k, v] : kv)
      if (k == n) return v.c_str();
    return nullptr;
  };
  return webgpu::Tuning::for_device(gpu().facts(), webgpu::parse_tuning_env(get));
}

struct Built {
  std::unique_ptr<ExecutableGraph> exe;
  ValueId x = -1, res = -1, out = -1;
  std::vector<float> w, bias, nw;  // w as the kernel sees it
};

// `t` is the tuning at build; `mutate` flips one code of the uploaded weights (row 0, k 0) after the reference
// copy is taken.
Built build(const Case& c, uint32_t seed, const webgpu::Tuning& t, bool mutate = false) {
  Graph g;
  Built b;
  b.x = g.input("x", DType::F32, {c.M, c.K});
  std::vector<float> w = ref::random_floats(size_t(c.N * c.K), seed, -0.5f, 0.5f);
  ops::Q4gswWeights q = ops::q4gsw_quantize(w, c.N, c.K, c.G);
  std::vector<uint16_t> s16;
  if (c.f16)
    for (float& s : q.scales) s16.push_back(f32_to_f16(s)), s = f16_to_f32(s16.back());
  b.w = ref::q4gsw_decode(q.qweight, q.scales, c.N, c.K, c.G);
  if (mutate) q.qweight[0] ^= 0x8u;
  ValueId qw = g.constant("qweight", DType::U32, {c.N, c.K / 8}, ConstantData::from_vector(q.qweight));
  ValueId sc = c.f16 ? g.constant("scales", DType::F16, {c.N, c.K / c.G}, ConstantData::from_vector(std::move(s16)))
                     : g.constant("scales", DType::F32, {c.N, c.K / c.G}, ConstantData::from_vector(q.scales));
  ValueId bias = g.none(), nw = g.none(), res = g.none();
  if (c.bias) {
    b.bias = ref::random_floats(size_t(c.N), seed + 1);
    bias = g.constant("bias", DType::F32, {c.N}, ConstantData::from_vector(b.bias));
  }
  if (c.norm) {
    b.nw = ref::random_floats(size_t(c.K), seed + 2, 0.5f, 1.5f);
    nw = g.constant("norm_weight", DType::F32, {c.K}, ConstantData::from_vector(b.nw));
  }
  if (c.res) res = b.res = g.input("residual", DType::F32, {c.M, c.N});
  b.out = g.tensor_like(DType::F32, "out");
  if (c.norm || c.res || c.act)
    g.op("wgrt.linear_q4gsw_fused.default",
         {b.x, qw, sc, g.int_value(c.G), bias, nw, g.real(kEps), res, g.int_value(c.act), b.out}, "lin");
  else
    g.op("et_vk.linear_q4gsw.default", {b.x, qw, sc, g.int_value(c.G), bias, b.out}, "lin");
  g.output(b.out);
  webgpu::ScopedTuning scoped(gpu(), t);
  b.exe = ExecutableGraph::build(std::move(g), gpu());
  return b;
}

double act_fn(int act, double g) {
  if (act == 2) return 0.5 * g * (1.0 + std::tanh(0.7978845608028654 * (g + 0.044715 * g * g * g)));
  return g / (1.0 + std::exp(-g));
}

struct Result {
  int bad = 0;             // outputs beyond the bound
  double max_err = 0;      // largest |d|
  double max_bound = 0;    // largest allowed |d|
  double first_row_err = 0;  // |d| of output 0
};

// Runs c (x ~ U(-2, 2), optionally with outlier blocks) and compares every output with its bound.
Result run(Built& b, const Case& c, uint32_t seed) {
  const int64_t M = c.M, K = c.K, N = c.N;
  std::vector<float> x = ref::random_floats(size_t(M * K), seed + 100, -2.0f, 2.0f);
  b.exe->set_input(b.x, {M, K}, std::span<const float>(x));
  std::vector<float> r;
  if (c.res) {
    r = ref::random_floats(size_t(M * N), seed + 200);
    b.exe->set_input(b.res, {M, N}, std::span<const float>(r));
  }
  b.exe->execute();
  const std::vector<float> got = b.exe->read_f32(b.out);
  const int64_t Nout = c.act ? N / 2 : N;
  EXPECT_EQ(int64_t(got.size()), M * Nout) << name(c);
  Result res;
  for (int64_t m = 0; m < M; ++m) {
    // x' in double (the norm as the reference composition), the per-block max, then y and its bound per row.
    std::vector<double> h(static_cast<size_t>(K));
    double ss = 0;
    for (int64_t k = 0; k < K; ++k) ss += double(x[size_t(m * K + k)]) * x[size_t(m * K + k)];
    const double inv = c.norm ? 1.0 / std::sqrt(ss / double(K) + kEps) : 1.0;
    for (int64_t k = 0; k < K; ++k) h[size_t(k)] = x[size_t(m * K + k)] * inv * (c.norm ? b.nw[size_t(k)] : 1.0);
    std::vector<double> y(static_cast<size_t>(N)), B(static_cast<size_t>(N)), A(static_cast<size_t>(N));
    for (int64_t n = 0; n < N; ++n) {
      double s = c.bias ? b.bias[size_t(n)] : 0.0, bound = 0, sum_abs = 0;
      for (int64_t blk = 0; blk < K / 32; ++blk) {
        double amax = 0, wsum = 0;
        for (int64_t k = blk * 32; k < blk * 32 + 32; ++k) {
          const double wk = b.w[size_t(n * K + k)];
          s += h[size_t(k)] * wk;
          amax = std::max(amax, std::fabs(h[size_t(k)]));
          wsum += std::fabs(wk);
          sum_abs += std::fabs(h[size_t(k)] * wk);
        }
        bound += amax * (planes(c) == 1 ? 1.0 / 254.0 : 0x1p-22) * wsum;
      }
      y[size_t(n)] = s, B[size_t(n)] = 1.001 * bound, A[size_t(n)] = 1e-5 * sum_abs + 1e-5;
    }
    for (int64_t j = 0; j < Nout; ++j) {
      double want, allowed;
      if (c.act) {
        const double g = y[size_t(j)], u = y[size_t(Nout + j)], Bg = B[size_t(j)], Bu = B[size_t(Nout + j)];
        want = act_fn(c.act, g) * u;
        allowed = (std::fabs(act_fn(c.act, g)) + 1.13 * Bg) * Bu + 1.13 * Bg * std::fabs(u) +
                  1.13 * A[size_t(j)] * (std::fabs(u) + Bu) + A[size_t(Nout + j)] * (std::fabs(act_fn(c.act, g)) + Bg);
      } else {
        want = y[size_t(j)] + (c.res ? r[size_t(m * N + j)] : 0.0);
        allowed = B[size_t(j)] + A[size_t(j)] + (c.res ? 1e-6 * std::fabs(want) : 0.0);
      }
      const double d = std::fabs(double(got[size_t(m * Nout + j)]) - want);
      if (!(d <= allowed)) {
        if (res.bad < 5)
          ADD_FAILURE() << name(c) << ": m " << m << " j " << j << " got " << got[size_t(m * Nout + j)] << " want "
                        << want << " |d| " << d << " > " << allowed;
        ++res.bad;
      }
      if (m == 0 && j == 0) res.first_row_err = d;
      res.max_err = std::max(res.max_err, d);
      res.max_bound = std::max(res.max_bound, allowed);
    }
  }
  return res;
}

void check(const Case& c, uint32_t seed, const webgpu::Tuning* base = nullptr) {
  webgpu::Tuning t = base ? *base : tuned({{"WGRT_GEMV_Q4_ROUTE", "s8"}, {"WGRT_GEMV_Q4_S8", c.shape}});
  t.fused_gemv = true;  // the norm and GLU inside the GEMV (CPU adapters' rule runs them as their own dispatches)
  Built b = build(c, seed, t);
  if ((c.norm || c.act || c.res) && !base) {
    // One dispatch for M <= 8: the GLU needs an even number of rows per workgroup (TR * RPT), else it runs apart.
    unsigned rpt = 0, tr = 0, u = 0;
    const bool odd = std::sscanf(c.shape, "%u,%u,%u", &rpt, &tr, &u) >= 3 && (rpt * tr) % 2 == 1;
    EXPECT_EQ(b.exe->dispatch_count(true), c.act && odd ? 2u : 1u) << name(c);
  }
  const Result r = run(b, c, seed);
  EXPECT_EQ(r.bad, 0) << name(c);
  // int8 x: errors far above f32 rounding where the bound is (f32 kernels stay near 1e-5 of it).
  // (Not through a GLU: its bound, of the products act(g) u, is loose against the largest error.)
  if (planes(c) == 1 && !c.act && c.K >= 256 && c.N >= 7) EXPECT_GT(r.max_err, 0.01 * r.max_bound) << name(c) << ": did the s8 kernel run?";
}

bool s8_runs() { return gpu().has_subgroups() && gpu().has_packed_dot(); }

}  // namespace

TEST(LinearS8, OddSizesShapesAndScales) {
  if (!s8_runs()) GTEST_SKIP() << "needs subgroups and packed_4x8_integer_dot_product";
  uint32_t seed = 1;
  const std::vector<Case> cases = {
      {1, 32, 1},          {1, 32, 7, 32, true},  {1, 96, 31},           {1, 160, 33, 32, true},
      {1, 1056, 129},      {1, 2048, 300, 64},    {1, 4096, 37, 128, true}, {1, 8192, 33},
      {1, 384, 33, 128},   {3, 160, 67, 32, true}, {8, 2048, 37},        {5, 96, 129, 32, false},
  };
  // (Each shape and K is its own pipeline: lavapipe compiles them slowly, so f32 scales run at the rule's shape.)
  for (const char* shape : {"", "1,1,1,1", "4,8,2,1", "3,5,4", "2,8,8,1"})
    for (Case c : cases) {
      c.shape = shape;
      check(c, seed++);
      if (*shape) continue;
      c.f16 = false;
      check(c, seed++);
    }
}

TEST(LinearS8, FusedPrologueAndEpilogues) {
  if (!s8_runs()) GTEST_SKIP() << "needs subgroups and packed_4x8_integer_dot_product";
  uint32_t seed = 500;
  const std::vector<Case> cases = {
      {1, 96, 67, 32, true, true},                  // norm + bias (qwen2 q/k/v)
      {1, 160, 37, 32, false, false, true},         // residual (o-proj, down-proj)
      {1, 2048, 600, 32, false, true, false, 1},    // norm + SwiGLU
      {1, 4096, 74, 64, false, true, false, 2},     // norm + GeGLU
      {1, 384, 10, 128, false, true, false, 1},     // fewer outputs than a workgroup's rows
      {1, 32, 2, 32, false, false, false, 1},       // one block, H = 1
      {3, 96, 10, 32, false, true, false, 1},       // M > 1
      {8, 2048, 67, 64, false, true, true},         // norm and residual, M 8
      {2, 1056, 258, 32, true, false, false, 2},    // GeGLU with a bias
      {1, 8192, 34, 32, false, true, false, 1},
  };
  for (const char* shape : {"", "4,8,2,1", "3,5,4,1"})
    for (Case c : cases) {
      c.shape = shape;
      check(c, seed++);
    }
}

TEST(LinearS8, RowsPastTheWorkgroupFoldAndBindingChunks) {
  if (!s8_runs()) GTEST_SKIP() << "needs subgroups and packed_4x8_integer_dot_product";
  // One row per workgroup: 65,541 workgroups fold into a 2-D grid (linear_workgroup).
  check({1, 32, 65541, 32, true, false, false, 0, true, "1,1,1"}, 900);
  check({2, 64, 65541, 32, false, false, true, 0, true, "1,1,2,1"}, 901);
  // Weights over a (lowered) binding limit: 600 rows of 48 B (K 96) at 12 KiB -> chunks of 256, 256, 88 rows;
  // f16 scales then start on a word of each chunk.
  webgpu::Tuning t = tuned({{"WGRT_GEMV_Q4_ROUTE", "s8"}, {"WGRT_GEMV_Q4_S8", "2,4,2,1"}});
  t.max_binding_bytes = 12288;
  for (Case c : {Case{1, 96, 600, 32, true}, Case{4, 96, 601, 32, false, false, true}, Case{1, 96, 601, 32, false, true},
                 Case{1, 96, 600, 32, false, true, false, 1}}) {
    c.shape = "2,4,2,1";  // (as t: the bound's planes)
    check(c, 910, &t);
    c.f16 = false;
    check(c, 911, &t);
  }
}

TEST(LinearS8, EdgeBlocks) {
  if (!s8_runs()) GTEST_SKIP() << "needs subgroups and packed_4x8_integer_dot_product";
  const int64_t K = 128, N = 9;
  for (const char* shape : {"", "2,8,2,1"}) {
    SCOPED_TRACE(shape);
    const webgpu::Tuning t = tuned({{"WGRT_GEMV_Q4_ROUTE", "s8"}, {"WGRT_GEMV_Q4_S8", shape}});
    Case c{1, K, N};
    Built b = build(c, 3, t);
    auto out_for = [&](std::vector<float> x) {
      b.exe->set_input(b.x, {1, K}, std::span<const float>(x));
      b.exe->execute();
      return b.exe->read_f32(b.out);
    };
    // An all-zero x: exactly 0 (d = 0 blocks).
    for (float v : out_for(std::vector<float>(size_t(K), 0.0f))) EXPECT_EQ(v, 0.0f);
    // x nonzero only in block 2: the other blocks add exactly 0.
    std::vector<float> x(size_t(K), 0.0f);
    for (int k = 64; k < 96; ++k) x[size_t(k)] = float(k % 3) - 1.0f;  // -1, 0, 1: kept exactly by both forms
    const std::vector<float> got = out_for(x), want = ref::linear(x, b.w, {}, 1, K, N);
    for (int64_t n = 0; n < N; ++n) EXPECT_NEAR(got[size_t(n)], want[size_t(n)], 1e-4 + 1e-5 * std::fabs(want[size_t(n)]));
    // An inf or a NaN in a block: NaN outputs (not a finite value from a clamped quantization).
    for (float bad : {INFINITY, -INFINITY, NAN}) {
      std::vector<float> xb = ref::random_floats(size_t(K), 5);
      xb[40] = bad;
      for (float v : out_for(xb)) EXPECT_TRUE(std::isnan(v)) << bad;
    }
    // Tiny blocks (1e-30, near f32's subnormals): kept to the bound, not flushed to 0 by scale * d.
    std::vector<float> xt = ref::random_floats(size_t(K), 6);
    for (float& v : xt) v *= 1e-30f;
    const std::vector<float> gt = out_for(xt), wt = ref::linear(xt, b.w, {}, 1, K, N);
    for (int64_t n = 0; n < N; ++n)
      EXPECT_NEAR(gt[size_t(n)] / 1e-30, wt[size_t(n)] / 1e-30, 0.15 * (1 + std::fabs(wt[size_t(n)] / 1e-30))) << n;
  }
}

TEST(LinearS8, BoundCatchesAOneCodeError) {
  if (!s8_runs()) GTEST_SKIP() << "needs subgroups and packed_4x8_integer_dot_product";
  // Code k 0 of row 0 changed by 8 (one weight off by 8 scales): row 0 must leave the bound, other rows not.
  // x of one block (K 32) makes the bound the tightest relative to one weight's share.
  const Case c{1, 32, 7};
  Built b = build(c, 77, tuned({{"WGRT_GEMV_Q4_ROUTE", "s8"}}), true);
  std::vector<float> x(32, 1.0f);
  b.exe->set_input(b.x, {1, 32}, std::span<const float>(x));
  b.exe->execute();
  const std::vector<float> got = b.exe->read_f32(b.out), want = ref::linear(x, b.w, {}, 1, 32, 7);
  // x all 1: q = 127, d = 1/127, so x is kept exactly and the kernel's only deviation is the mutated code; the
  // bound for row 0 is sum |W[0][k]| / 254.
  double bound = 0;
  for (int k = 0; k < 32; ++k) bound += std::fabs(b.w[size_t(k)]) / 254.0 * 1.001;
  EXPECT_GT(std::fabs(got[0] - want[0]), bound);
  for (int n = 1; n < 7; ++n) EXPECT_NEAR(got[size_t(n)], want[size_t(n)], 1e-4) << n;
}

TEST(LinearS8, PolicyAndKnobs) {
  webgpu::DeviceFacts f;
  f.packed_dot = true;
  f.subgroups = true;
  const webgpu::Tuning g = webgpu::Tuning::for_device(f);
  EXPECT_EQ(g.gemv_q4_s8_shape(128256, 2048), (webgpu::GemvQ4S8Shape{8, 8, 2}));
  EXPECT_EQ(g.gemv_q4_s8_shape(32768, 2048), (webgpu::GemvQ4S8Shape{4, 8, 2}));
  EXPECT_EQ(g.gemv_q4_s8_shape(1536, 8960), (webgpu::GemvQ4S8Shape{1, 4, 8}));
  EXPECT_EQ(g.gemv_q4_s8_shape(16384, 2048), (webgpu::GemvQ4S8Shape{4, 8, 2}));
  EXPECT_EQ(g.gemv_q4_s8_shape(2048, 2048), (webgpu::GemvQ4S8Shape{1, 8, 2}));
  EXPECT_EQ(g.gemv_q4_s8_shape(2048, 8192), (webgpu::GemvQ4S8Shape{1, 8, 8}));
  EXPECT_EQ(g.gemv_q4_s8_shape(512, 2048), (webgpu::GemvQ4S8Shape{1, 2, 2}));
  EXPECT_EQ(g.gemv_q4_s8_shape(4096, 32), (webgpu::GemvQ4S8Shape{2, 8, 1}));
  auto with = [&](webgpu::DeviceFacts facts, Knobs kv) {
    auto get = [&](const char* n) -> const char* {
      for (const auto& [k, v] : kv)
        if (k == n) return v.c_str();
      return nullptr;
    };
    return webgpu::Tuning::for_device(facts, webgpu::parse_tuning_env(get));
  };
  EXPECT_EQ(with(f, {{"WGRT_GEMV_Q4_ROUTE", "s8"}}).q4_gemv, webgpu::Q4GemvKernel::Stream);
  webgpu::DeviceFacts nosg = f;
  nosg.subgroups = false;  // ignored without subgroups: the rule's kernel stays
  EXPECT_EQ(with(nosg, {{"WGRT_GEMV_Q4_ROUTE", "s8"}}).q4_gemv, webgpu::Q4GemvKernel::Int8);
  EXPECT_EQ(with(f, {{"WGRT_GEMV_Q4_S8", "2,4,8"}}).gemv_q4_s8_forced, (webgpu::GemvQ4S8Shape{2, 4, 8, 3}));
  EXPECT_EQ(with(f, {{"WGRT_GEMV_Q4_S8", "2,4,8,1"}}).gemv_q4_s8_forced, (webgpu::GemvQ4S8Shape{2, 4, 8, 1}));
  for (const char* v : {"0,1,1", "9,1,1", "1,9,1", "1,1,17", "4,1,5", "1,1", "1,1,1,2", "1,1,1,1,1", "a,b,c", "-1,1,1"}) {
    try {
      with(f, {{"WGRT_GEMV_Q4_S8", v}});
      ADD_FAILURE() << v << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("WGRT_GEMV_Q4_S8='{}' is malformed", v)), std::string::npos);
    }
  }
}
