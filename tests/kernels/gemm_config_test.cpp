// The shared GEMM kernels forced one by one through the device's tuning policy (ops/linear/gemm.h): the Tiled kernel
// (gemm.wgsl) and the Cpu kernel (gemm_cpu.wgsl) in several shapes, through aten.mm / bmm / addmm and
// aten.linear / et_vk.linear_q4gsw (M > 8: GEMM route), on odd sizes (M, N, K not multiples of the tiles or of
// the 8-wide K step), against the double reference. Plus the host side: config parsing, rule and grids.
// Tolerance |d| <= 1e-4 + 1e-3 |ref| (K <= 300).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <string>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/gemm.h"
#include "ops/linear/q4gsw.h"
#include "reference/ops_a_reference.h"
#include "reference/vision_ref.h"
#include "util/half.h"
#include "vision_test_util.h"
#include "webgpu/device.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::gpu;
using wgrt::test::OneOp;
namespace ref = wgrt::test::ref;
namespace vref = wgrt::test::vref;

namespace {

constexpr double kAbs = 1e-4, kRel = 1e-3;

// The WGRT_GEMM form `v` parsed as the tuning policy does, without the environment.
webgpu::TuningOverrides gemm_overrides(const std::string& v) {
  return webgpu::parse_tuning_env([&](const char* name) { return std::string(name) == "WGRT_GEMM" ? v.c_str() : nullptr; });
}

// The device's tuning policy with the GEMM kernel `v` ("tiled", "cpu", "cpu,RQ,WG"; "+big": tiled, and the
// linear layers and mm / addmm / bmm always on the register-blocked 128x128 kernel; "+split": mm / addmm split K
// wherever gemm_splits finds a split) for its lifetime. Without "+split" nothing splits.
struct ScopedGemm {
  static webgpu::Tuning with(std::string v) {
    webgpu::Tuning t = gpu().tuning();
    auto take = [&](const std::string& suffix) {
      const bool has = v.ends_with(suffix);
      if (has) v.resize(v.size() - suffix.size());
      return has;
    };
    const bool split = take("+split"), big = take("+big");
    t.gemm = *gemm_overrides(v).gemm;
    t.gemm.big_min_tiles = big ? 1 : 0;
    t.gemm.split_target_workgroups = split ? 1u << 30 : 0;
    return t;
  }
  explicit ScopedGemm(const std::string& v) : scoped(gpu(), with(v)) {}
  webgpu::ScopedTuning scoped;
};

std::vector<std::string> configs() {
  std::vector<std::string> c{"tiled", "tiled+big", "tiled+split", "tiled+big+split"};
  if (gpu().tuning().gemm_cpu_supported) c.insert(c.end(), {"cpu", "cpu,1,8", "cpu,3,24", "cpu,2,256"});
  return c;
}

// q4 with f16_scales: the scales uploaded as f16 (as the GGUF loader does), the reference decoding with them.
std::vector<float> linear_run(bool q4, int64_t M, int64_t K, int64_t N, int64_t G, bool with_bias, uint32_t seed,
                              bool f16_scales = false) {
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
    std::vector<uint16_t> s16;
    if (f16_scales)
      for (float& s : q.scales) s16.push_back(f32_to_f16(s)), s = f16_to_f32(s16.back());
    wk = ref::q4gsw_decode(q.qweight, q.scales, N, K, G);
    ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(q.qweight));
    ValueId sc = f16_scales ? g.constant("scales", DType::F16, {N, K / G}, ConstantData::from_vector(std::move(s16)))
                            : g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(q.scales));
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
  expect_close(got, want, kAbs, kRel,
               fmt::format("{} M {} K {} N {} G {} bias {}", q4 ? (f16_scales ? "q4 f16" : "q4") : "f32", M, K, N, G, with_bias));
  return got;
}

}  // namespace

TEST(GemmConfig, MmBmmAddmmOddSizesEveryConfig) {
  for (const std::string& cfg : configs()) {
    ScopedGemm scoped(cfg);
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
    ScopedGemm scoped(cfg);
    linear_run(false, 9, 7, 5, 32, true, 1);
    linear_run(false, 37, 130, 67, 32, false, 2);
    linear_run(false, 70, 33, 129, 32, true, 3);
    linear_run(true, 9, 32, 5, 32, true, 4);
    linear_run(true, 21, 192, 67, 64, false, 5);
    linear_run(true, 66, 256, 33, 128, true, 6);
    linear_run(true, 9, 96, 5, 32, true, 7, true);  // 3 f16 scales per row: rows start mid-word
    linear_run(true, 21, 192, 67, 64, false, 8, true);
  }
}

// The register-blocked kernel at sizes across its 128x128 tiles and 16-k slices (M, N, K odd or one past a
// tile), f32 and q4gsw (groups 32 and 64), and that it is the dispatch that ran.
TEST(GemmConfig, LinearBigTileOddSizes) {
  ScopedGemm scoped("tiled+big");
  for (auto [M, K, N] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{9, 7, 5}, {129, 33, 257}, {200, 17, 131}})
    linear_run(false, M, K, N, 32, M % 2 == 1, uint32_t(M + N));
  for (auto [M, K, N, G] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{
           {9, 32, 5, 32}, {129, 96, 257, 32}, {131, 192, 130, 64}})
    for (bool f16 : {false, true}) linear_run(true, M, K, N, G, N % 2 == 0, uint32_t(M + K), f16);
  Graph g;
  ValueId x = g.input("x", DType::F32, {20, 16});
  ValueId w = g.constant("weight", DType::F32, {24, 16}, ConstantData::from_vector(ref::random_floats(24 * 16, 1)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("aten.linear.default", {x, w, g.none(), out}, "lin");
  g.output(out);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  exe->set_input(x, {20, 16}, std::span<const float>(ref::random_floats(20 * 16, 2)));
  exe->execute();
  const std::string dump = exe->dump();
  const size_t at = dump.find("gemm_big.wgsl:main");
  ASSERT_NE(at, std::string::npos) << dump;
  EXPECT_EQ(dump.substr(at, dump.find('\n', at) - at).find("inactive"), std::string::npos) << dump;
}

// Split-K (aten.mm / addmm, batch 1) on both GPU kernels: K with divisors giving slices of >= 32 (S = 3, 10, 16 and
// 2 at one row), one past the tiles in M and N, addmm with alpha, beta and a [N] / [M, 1] bias applied once in the
// reduce pass; that the split dispatches ran; and a bmm (never split) beside it.
TEST(GemmConfig, MmAddmmSplitK) {
  for (const char* cfg : {"tiled+split", "tiled+big+split"}) {
    ScopedGemm scoped(cfg);
    uint32_t seed = 40;
    for (auto [M, K, N, S] : std::vector<std::tuple<int64_t, int64_t, int64_t, uint32_t>>{
             {65, 96, 129, 3}, {5, 320, 7, 10}, {130, 1024, 131, 16}, {1, 64, 3, 2}}) {
      EXPECT_EQ(ops::gemm_splits(1, uint32_t(K), uint64_t(M * N), 1u << 30, uint64_t(1) << 30), S);
      auto a = ref::random_floats(size_t(M * K), seed++), b = ref::random_floats(size_t(K * N), seed++);
      auto bias = ref::random_floats(size_t(M % 2 ? N : M), seed++);
      const auto prod = vref::bmm(a, b, 1, M, K, N);
      OneOp o;
      ValueId cv = o.constant(M % 2 ? Dims{N} : Dims{M, 1}, bias);
      ValueId av = o.input({M, K}, a), bv = o.input({K, N}, b);
      o.build("aten.addmm.default", {cv, av, bv, o.g.real(0.75), o.g.real(-1.25)});
      std::vector<float> want(size_t(M * N));
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n)
          want[size_t(m * N + n)] = float(0.75 * bias[size_t(M % 2 ? n : m)] - 1.25 * prod[size_t(m * N + n)]);
      expect_close(o.run(), want, kAbs, kRel, fmt::format("{}: addmm M {} K {} N {}", cfg, M, K, N));
      const std::string dump = o.exe->dump();
      const size_t at = dump.find("gemm_splitk_reduce.wgsl:main");
      ASSERT_NE(at, std::string::npos) << dump;
      EXPECT_EQ(dump.substr(at, dump.find('\n', at) - at).find("inactive"), std::string::npos) << dump;
      OneOp mm;
      ValueId am = mm.input({M, K}, a), bm = mm.input({K, N}, b);
      mm.build("aten.mm.default", {am, bm});
      expect_close(mm.run(), prod, kAbs, kRel, fmt::format("{}: mm M {} K {} N {}", cfg, M, K, N));
    }
    auto a = ref::random_floats(2 * 9 * 64, 7), b = ref::random_floats(2 * 64 * 5, 8);
    OneOp o;
    ValueId av = o.input({2, 9, 64}, a), bv = o.input({2, 64, 5}, b);
    o.build("aten.bmm.default", {av, bv});
    expect_close(o.run(), vref::bmm(a, b, 2, 9, 64, 5), kAbs, kRel, std::string(cfg) + ": bmm");
  }
  // The rule: no split at or above the target, none without a divisor giving >= 32-k slices, capped at 16 and by
  // the partials' bytes.
  EXPECT_EQ(ops::gemm_splits(256, 768, 1000, 256, 1u << 30), 1u);
  EXPECT_EQ(ops::gemm_splits(36, 768, 197 * 2304, 256, 1u << 30), 8u);  // ViT qkv on gemm_big: 288 workgroups
  EXPECT_EQ(ops::gemm_splits(12, 3072, 197 * 768, 256, 1u << 30), 16u);
  EXPECT_EQ(ops::gemm_splits(12, 3072, 197 * 768, 256, 4 * 197 * 768 * 4), 4u);
  EXPECT_EQ(ops::gemm_splits(1, 31, 10, 256, 1u << 30), 1u);
  EXPECT_EQ(ops::gemm_splits(1, 97, 10, 256, 1u << 30), 1u);  // prime
  EXPECT_EQ(ops::gemm_splits(10, 768, 10, 0, 1u << 30), 1u);
  // The policy: split below 512 workgroups on GPUs, off on CPU adapters; WGRT_GEMM_SPLITK sets it.
  webgpu::DeviceFacts f;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.split_target_workgroups, 512u);
  auto env = [](const char* v) {
    return webgpu::parse_tuning_env([&](const char* name) { return std::string(name) == "WGRT_GEMM_SPLITK" ? v : nullptr; });
  };
  EXPECT_EQ(webgpu::Tuning::for_device(f, env("0")).gemm.split_target_workgroups, 0u);
  EXPECT_EQ(webgpu::Tuning::for_device(f, env("1000")).gemm.split_target_workgroups, 1000u);
  EXPECT_THROW(env("many"), InvalidArgument);
  f.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.split_target_workgroups, 0u);
}

TEST(GemmConfig, ParseRuleAndGrid) {
  {
    const ops::GemmConfig c = ops::gemm_config(*gemm_overrides("cpu,3,24").gemm);
    EXPECT_EQ(c.kind, ops::GemmConfig::Kind::Cpu);
    EXPECT_EQ(c.tile_m, 12u);  // reflected from gemm_cpu.wgsl: 4 * RQ rows, WG columns
    EXPECT_EQ(c.tile_n, 24u);
    EXPECT_EQ(ops::gemm_config(webgpu::GemmTuning{}).tile_m, 64u);  // gemm.wgsl's TILE_M
  }
  for (const char* bad : {"cpu,0,64", "cpu,5,64", "cpu,4,12", "cpu,4,512", "cpu,4", "gpu", "cpu,4,64x"}) {
    try {
      gemm_overrides(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("WGRT_GEMM='") + bad + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(gemm_overrides("").gemm.has_value());
  // The rule: Cpu on CPU adapters with subgroups of >= 8 lanes, else Tiled; cpu where unsupported is an error.
  webgpu::DeviceFacts f;
  f.cpu_adapter = true;
  f.subgroups = true;
  f.subgroup_min = 8;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.kind, webgpu::GemmTuning::Kind::Cpu);
  f.subgroup_min = 4;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.kind, webgpu::GemmTuning::Kind::Tiled);
  EXPECT_THROW(webgpu::Tuning::for_device(f, gemm_overrides("cpu")), InvalidArgument);
  f.cpu_adapter = false;
  f.subgroup_min = 32;
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.kind, webgpu::GemmTuning::Kind::Tiled);
  EXPECT_EQ(webgpu::Tuning::for_device(f, gemm_overrides("cpu,2,16")).gemm,
            (webgpu::GemmTuning{.kind = webgpu::GemmTuning::Kind::Cpu, .rq = 2, .wg = 16, .big_min_tiles = 64,
                                .split_target_workgroups = 512}));
  // The 128x128 kernel's rule: from 64 output tiles; WGRT_GEMM_BIG sets it (0 = never), WGRT_GEMM keeps it.
  EXPECT_EQ(webgpu::Tuning::for_device(f).gemm.big_min_tiles, 64u);
  auto big = [](const char* v) {
    return webgpu::parse_tuning_env([&](const char* name) { return std::string(name) == "WGRT_GEMM_BIG" ? v : nullptr; });
  };
  EXPECT_EQ(webgpu::Tuning::for_device(f, big("0")).gemm.big_min_tiles, 0u);
  EXPECT_EQ(webgpu::Tuning::for_device(f, big("7")).gemm.big_min_tiles, 7u);
  EXPECT_THROW(big("-1"), InvalidArgument);
  EXPECT_THROW(big("x"), InvalidArgument);

  ops::GemmParams p;
  p.M = 130;
  p.N = 65;
  p.batch = 3;
  EXPECT_EQ(ops::gemm_grid(ops::gemm_config(webgpu::GemmTuning{}), p, 65535), (Grid{2, 3, 3}));
  const ops::GemmConfig c = ops::gemm_config(webgpu::GemmTuning{webgpu::GemmTuning::Kind::Cpu, 4, 64});
  EXPECT_EQ(ops::gemm_grid(c, p, 65535), (Grid{9, 2, 3}));
  EXPECT_THROW(ops::gemm_grid(c, p, 8), InvalidArgument);
  // A batch past the z limit folds into the m-tile axis (3 m tiles, 2 batches side by side, 8 layers).
  p.batch = 16;
  EXPECT_EQ(ops::gemm_grid(ops::gemm_config(webgpu::GemmTuning{}), p, 8), (Grid{2, 6, 8}));
  p.batch = 17;
  EXPECT_THROW(ops::gemm_grid(ops::gemm_config(webgpu::GemmTuning{}), p, 8), InvalidArgument);
  p.batch = 3;
  p.M = 0;
  EXPECT_EQ(ops::gemm_grid(c, p, 65535).total(), 0u);
}
