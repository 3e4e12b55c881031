// The shared GEMM kernels forced one by one through WGRT_GEMM (ops/linear/gemm.h): the Tiled kernel
// (gemm.wgsl) and the Cpu kernel (gemm_cpu.wgsl) in several shapes, through aten.mm / bmm / addmm and
// aten.linear / et_vk.linear_q4gsw (M > 8: GEMM route), on odd sizes (M, N, K not multiples of the tiles or of
// the 8-wide K step), against the double reference. Plus the host side: config parsing, rule and grids.
// Tolerance |d| <= 1e-4 + 1e-3 |ref| (K <= 300).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/gemm.h"
#include "ops/linear/q4gsw.h"
#include "reference/ops_a_reference.h"
#include "reference/vision_ref.h"
#include "vision_test_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::gpu;
using wgrt::test::OneOp;
namespace ref = wgrt::test::ref;
namespace vref = wgrt::test::vref;

namespace {

constexpr double kAbs = 1e-4, kRel = 1e-3;

// Sets WGRT_GEMM for its lifetime (restores the previous value).
class ScopedGemmEnv {
 public:
  explicit ScopedGemmEnv(const std::string& v) {
    if (const char* e = std::getenv("WGRT_GEMM")) old_ = e;
    ::setenv("WGRT_GEMM", v.c_str(), 1);
  }
  ~ScopedGemmEnv() {
    if (old_) ::setenv("WGRT_GEMM", old_->c_str(), 1);
    else ::unsetenv("WGRT_GEMM");
  }

 private:
  std::optional<std::string> old_;
};

std::vector<std::string> configs() {
  std::vector<std::string> c{"tiled"};
  if (ops::gemm_cpu_supported(gpu())) c.insert(c.end(), {"cpu", "cpu,1,8", "cpu,3,24", "cpu,2,256"});
  return c;
}

std::vector<float> linear_run(bool q4, int64_t M, int64_t K, int64_t N, int64_t G, bool with_bias, uint32_t seed) {
  Graph g;
  ValueId x = g.input("x", DType::F32, {M, K});
  std::vector<float> w = ref::random_floats(size_t(N * K), seed, -0.5f, 0.5f), bias;
  ValueId bv = g.none();
  if (with_bias) {
    bias = ref::random_floats(size_t(N), seed + 1);
    bv = g.constant("bias", DType::F32, {N}, ConstantData::from_vector(bias));
  }
  ValueId out = g.tensor_like(DType::F32, "out");
  std::vector<float> wk = w;
  if (q4) {
    ops::Q4gswWeights q = ops::q4gsw_quantize(w, N, K, G);
    wk = ref::q4gsw_decode(q.qweight, q.scales, N, K, G);
    ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(q.qweight));
    ValueId sc = g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(q.scales));
    g.op("et_vk.linear_q4gsw.default", {x, qw, sc, g.int_value(G), bv, out}, "lin");
  } else {
    ValueId wt = g.constant("weight", DType::F32, {N, K}, ConstantData::from_vector(w));
    g.op("aten.linear.default", {x, wt, bv, out}, "lin");
  }
  g.output(out);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  std::vector<float> xv = ref::random_floats(size_t(M * K), seed + 2);
  exe->set_input(x, {M, K}, std::span<const float>(xv));
  exe->execute();
  std::vector<float> got = exe->read_f32(out);
  std::vector<float> want = ref::linear(xv, wk, bias, M, K, N);
  expect_close(got, want, kAbs, kRel, fmt::format("{} M {} K {} N {} G {} bias {}", q4 ? "q4" : "f32", M, K, N, G, with_bias));
  return got;
}

}  // namespace

TEST(GemmConfig, MmBmmAddmmOddSizesEveryConfig) {
  for (const std::string& cfg : configs()) {
    ScopedGemmEnv env(cfg);
    uint32_t seed = 11;
    for (auto [Z, M, K, N] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{
             {1, 1, 1, 1}, {1, 7, 5, 3}, {1, 65, 33, 129}, {3, 17, 100, 9}, {2, 30, 8, 257}, {1, 13, 9, 70}}) {
      auto a = ref::random_floats(size_t(Z * M * K), seed++), b = ref::random_floats(size_t(Z * K * N), seed++);
      OneOp o;
      const bool batched = Z > 1;
      ValueId av = o.input(batched ? Dims{Z, M, K} : Dims{M, K}, a);
      ValueId bv = o.input(batched ? Dims{Z, K, N} : Dims{K, N}, b);
      o.build(batched ? "aten.bmm.default" : "aten.mm.default", {av, bv});
      expect_close(o.run(), vref::bmm(a, b, Z, M, K, N), kAbs, kRel,
                   fmt::format("{}: Z {} M {} K {} N {}", cfg, Z, M, K, N));
    }
    // addmm: row bias broadcast, alpha/beta.
    const int64_t M = 19, K = 43, N = 21;
    auto a = ref::random_floats(size_t(M * K), 3), b = ref::random_floats(size_t(K * N), 4),
         bias = ref::random_floats(size_t(M), 5);
    OneOp o;
    ValueId cv = o.constant({M, 1}, bias);
    ValueId av = o.input({M, K}, a), bv = o.input({K, N}, b);
    o.build("aten.addmm.default", {cv, av, bv, o.g.real(0.5), o.g.real(-1.5)});
    const auto prod = vref::bmm(a, b, 1, M, K, N);
    std::vector<float> want(size_t(M * N));
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        want[size_t(m * N + n)] = float(0.5 * bias[size_t(m)] - 1.5 * prod[size_t(m * N + n)]);
    expect_close(o.run(), want, kAbs, kRel, cfg + ": addmm");
  }
}

TEST(GemmConfig, LinearF32AndQ4OddSizesEveryConfig) {
  for (const std::string& cfg : configs()) {
    SCOPED_TRACE(cfg);
    ScopedGemmEnv env(cfg);
    linear_run(false, 9, 7, 5, 32, true, 1);
    linear_run(false, 37, 130, 67, 32, false, 2);
    linear_run(false, 70, 33, 129, 32, true, 3);
    linear_run(true, 9, 32, 5, 32, true, 4);
    linear_run(true, 21, 192, 67, 64, false, 5);
    linear_run(true, 66, 256, 33, 128, true, 6);
  }
}

TEST(GemmConfig, ParseRuleAndGrid) {
  {
    ScopedGemmEnv env("cpu,3,24");
    const ops::GemmConfig c = ops::gemm_config_default();
    EXPECT_EQ(c.kind, ops::GemmConfig::Kind::Cpu);
    EXPECT_EQ(c.tile_m(), 12u);
    EXPECT_EQ(c.tile_n(), 24u);
  }
  for (const char* bad : {"cpu,0,64", "cpu,5,64", "cpu,4,12", "cpu,4,512", "cpu,4", "gpu", "cpu,4,64x"}) {
    ScopedGemmEnv env(bad);
    EXPECT_THROW(ops::gemm_config_default(), InvalidArgument) << bad;
  }
  ::unsetenv("WGRT_GEMM");
  EXPECT_EQ(ops::gemm_config_default().kind, ops::GemmConfig::Kind::Tiled);
  const bool cpu = gpu().adapter_info().type == WGPUAdapterType_CPU && ops::gemm_cpu_supported(gpu());
  EXPECT_EQ(ops::gemm_config(gpu()).kind, cpu ? ops::GemmConfig::Kind::Cpu : ops::GemmConfig::Kind::Tiled);

  ops::GemmParams p;
  p.M = 130;
  p.N = 65;
  p.batch = 3;
  EXPECT_EQ(ops::gemm_grid(ops::GemmConfig{}, p, 65535), (Grid{2, 3, 3}));
  ops::GemmConfig c;
  c.kind = ops::GemmConfig::Kind::Cpu;
  c.rq = 4;
  c.wg = 64;
  EXPECT_EQ(ops::gemm_grid(c, p, 65535), (Grid{9, 2, 3}));
  EXPECT_THROW(ops::gemm_grid(c, p, 8), InvalidArgument);
  p.M = 0;
  EXPECT_EQ(ops::gemm_grid(c, p, 65535).total(), 0u);
}
