// wgrt.linear_ggml_fused.default (the block-format linear with the RMSNorm before it, a residual add or a GLU
// after it folded in; gemv_kq.wgsl with the hooks of gemv_q4_fuse.wgsl) on a real adapter against a plain C++
// composition of the unfused parts: ref::rms_norm in double, a double GEMV over the weights as the src/formats
// decoders dequantize them (bit-exact with llama.cpp, tests/host/ggml_dequant_test.cpp), then the GLU or the
// residual add in double. Every type the op takes (Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K), odd N and H, K of 3
// blocks (K-quants: 768 = 256 * 3) and 5 blocks, M 1, 2, 3, 5, 8 (the four GEMV routes, partial grid layers) and
// 11 (two layers, or the GEMM route on GPUs), every prologue / epilogue combination the decoder uses (norm + bias,
// residual, norm + residual, norm + SwiGLU, norm + GeGLU with a bias; all on Q4_K and Q6_K, two on the other
// types), the policy's fused_gemv on and off, the
// block GEMM route forced on any adapter, weights split into binding chunks, and bad arguments.
// Tolerance: |d| <= 2e-5 * m + 1e-6, m the sum over k of |h_k W_nk| (f32 accumulation and the f32 norm); a GLU
// output carries both rows' errors through act(g) * u: 2e-5 * (1.2 m_g |u| + m_u |act(g)|) + 1e-6 (|act'| < 1.2).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "ggml_test_blocks.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/linear_ggml.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"
#include "webgpu/device.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;
using wgrt::test::route0_workgroups;
namespace ref = wgrt::test::ref;

namespace {

constexpr double kEps = 1e-5, kRel = 2e-5;

struct Case {
  int64_t K, N;  // N: rows of W (2H with a GLU)
  bool norm, res, bias;
  int act;  // 0 none, 1 silu-GLU, 2 gelu-tanh-GLU
};

std::string name(GgmlType t, const Case& c) {
  return fmt::format("{} K {} N {} norm {} res {} bias {} act {}", ggml_type_name(t), c.K, c.N, c.norm, c.res, c.bias,
                     c.act);
}

struct Fused {
  std::unique_ptr<ExecutableGraph> exe;
  ValueId x = -1, res = -1, out = -1;
  std::vector<float> w, bias, nw;  // w as the src/formats decoders dequantize it
};

// Second part of a two-type stack: rows c.N - rows2 .. c.N - 1 of W in type t2 (ops::ggml_stack_layout).
struct Part2 {
  GgmlType t2;
  int64_t rows2;
};

Fused make_fused(GgmlType t, const Case& c, uint64_t seed, int64_t max_m = 11, std::optional<Part2> p2 = {}) {
  const int64_t rows1 = p2 ? c.N - p2->rows2 : c.N;
  std::vector<std::pair<int64_t, int64_t>> type_rows = {{int64_t(t), rows1}};
  if (p2) type_rows.push_back({int64_t(p2->t2), p2->rows2});
  test::StackedBlocks sb = test::random_stack(type_rows, c.K, seed);
  Fused f;
  f.w = std::move(sb.w);
  std::vector<uint32_t> words = std::move(sb.words);
  Graph g;
  f.x = g.input("x", DType::F32, {max_m, c.K});
  const int64_t nwords = int64_t(words.size());
  ValueId w = g.constant("w", DType::U32, {nwords}, ConstantData::from_vector(std::move(words)));
  ValueId bias = g.none(), nw = g.none(), res = g.none();
  if (c.bias) {
    f.bias = ref::random_floats(size_t(c.N), uint32_t(seed) + 1);
    bias = g.constant("bias", DType::F32, {c.N}, ConstantData::from_vector(f.bias));
  }
  if (c.norm) {
    f.nw = ref::random_floats(size_t(c.K), uint32_t(seed) + 2, 0.5f, 1.5f);
    nw = g.constant("norm_weight", DType::F32, {c.K}, ConstantData::from_vector(f.nw));
  }
  if (c.res) res = f.res = g.input("residual", DType::F32, {max_m, c.N});
  f.out = g.tensor_like(DType::F32, "out");
  const ValueId wt = p2 ? g.int_list({int64_t(t), rows1, int64_t(p2->t2), p2->rows2}) : g.int_value(int64_t(t));
  g.op("wgrt.linear_ggml_fused.default", {f.x, w, wt, g.int_value(c.N), bias, nw, g.real(kEps), res,
                                          g.int_value(c.act), f.out}, "lin");
  g.output(f.out);
  f.exe = ExecutableGraph::build(std::move(g), gpu());
  return f;
}

double act_fn(int act, double g) {
  if (act == 2) return 0.5 * g * (1.0 + std::tanh(0.7978845608028654 * (g + 0.044715 * g * g * g)));
  return g / (1.0 + std::exp(-g));
}

// Runs M rows through f and compares with the unfused composition. q8: the route quantizes the (normalized)
// x to int8 per 32-k block (quantize_q8.wgsl: scale amax / 127), so each output may also be off by its rounding,
// at most sum_k |w[n][k]| * amax(block of k) / 254 (half a step per element), added to the tolerance.
void run_and_check(Fused& f, const Case& c, int64_t M, uint32_t seed, const std::string& what, bool q8 = false) {
  std::vector<float> x = ref::random_floats(size_t(M * c.K), seed + 100, -2.0f, 2.0f);
  f.exe->set_input(f.x, {M, c.K}, std::span<const float>(x));
  std::vector<float> r;
  if (c.res) {
    r = ref::random_floats(size_t(M * c.N), seed + 200);
    f.exe->set_input(f.res, {M, c.N}, std::span<const float>(r));
  }
  f.exe->execute();
  const std::vector<float> h = c.norm ? ref::rms_norm(x, f.nw, c.K, kEps) : x;
  std::vector<double> y(size_t(M * c.N)), mag(size_t(M * c.N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < c.N; ++n) {
      double s = c.bias ? f.bias[size_t(n)] : 0.0, a = 0;
      for (int64_t k = 0; k < c.K; ++k) {
        const double p = double(h[size_t(m * c.K + k)]) * f.w[size_t(n * c.K + k)];
        s += p, a += std::fabs(p);
      }
      double qe = 0;
      for (int64_t k0 = 0; q8 && k0 < c.K; k0 += 32) {
        double amax = 0, wsum = 0;
        for (int64_t k = k0; k < std::min(k0 + 32, c.K); ++k) {
          amax = std::max(amax, double(std::fabs(h[size_t(m * c.K + k)])));
          wsum += std::fabs(f.w[size_t(n * c.K + k)]);
        }
        qe += wsum * amax / 254.0 * 1.001;
      }
      y[size_t(m * c.N + n)] = s, mag[size_t(m * c.N + n)] = a + qe / kRel;  // tolerance kRel * mag
    }
  const int64_t Nout = c.act ? c.N / 2 : c.N;
  ASSERT_EQ(f.exe->dims(f.out), (Dims{M, Nout})) << what;
  const std::vector<float> got = f.exe->read_f32(f.out);
  int bad = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t j = 0; j < Nout; ++j) {
      const size_t o = size_t(m * Nout + j), gi = size_t(m * c.N + j), ui = gi + size_t(Nout);
      double want, tol;
      if (c.act) {
        want = act_fn(c.act, y[gi]) * y[ui];
        tol = kRel * (1.2 * mag[gi] * std::fabs(y[ui]) + mag[ui] * std::fabs(act_fn(c.act, y[gi]))) + 1e-6;
      } else {
        want = y[o] + (c.res ? r[o] : 0.0f);
        tol = kRel * mag[o] + 1e-6;
      }
      if (!(std::fabs(got[o] - want) <= tol) && bad++ < 3)
        ADD_FAILURE() << what << " m " << m << " j " << j << ": gpu " << got[o] << " ref " << want << " tol " << tol;
    }
  EXPECT_EQ(bad, 0) << what;
}

const GgmlType kFusedTypes[] = {GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q8_0,
                                GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K};

// The decoder's combinations at K of `blocks` blocks (be elements each).
std::vector<Case> cases(int64_t be) {
  return {
      {3 * be, 37, true, false, true, 0},   // q/k/v with a bias (qwen2)
      {3 * be, 37, false, true, false, 0},  // o-proj / down-proj: residual
      {5 * be, 21, true, true, false, 0},   // norm and residual together
      {3 * be, 74, true, false, false, 1},  // gate/up with SwiGLU, H 37
      {5 * be, 26, true, false, true, 2},   // GeGLU with a bias, H 13
  };
}

webgpu::Tuning tuned(bool fused_gemv, uint32_t int8_gemv = 0) {
  webgpu::Tuning t = gpu().tuning();
  t.fused_gemv = fused_gemv;
  t.ggml_gemv_int8 = int8_gemv;  // f32 x unless asked (Int8GemvRoute)
  t.ggml_gemv_int8_staged_rows = 8;  // the asked mode on every route
  t.gemm.mmq_ggml_min_tiles = 0;     // M > 8 on the f32 routes (the int8 GEMM: GemmRoute* variants, linear_mmq_ggml_test.cpp)
  return t;
}

}  // namespace

// Every combination on Q4_K and Q6_K (the two chunk layouts of the K-quants), with fused_gemv on and (Q4_K) off;
// the other types with the norm + residual and norm + SwiGLU cases (the hooks are type-independent; each type's
// chunk decoder feeds them through fma_rows). Each graph compiles 4 GEMV routes: kept few for lavapipe.
TEST(LinearGgmlFused, EveryTypeAndFusionMatchesUnfusedComposition) {
  uint32_t seed = 1;
  for (GgmlType t : kFusedTypes)
    for (bool fg : {true, false}) {
      const bool full = t == GgmlType::Q4_K || t == GgmlType::Q6_K;
      if (!fg && t != GgmlType::Q4_K) continue;
      webgpu::ScopedTuning scoped(gpu(), tuned(fg));
      const std::vector<Case> cs = cases(ops::ggml_gpu_block(int64_t(t))->elems);
      for (size_t i = 0; i < cs.size(); ++i) {
        if (!full && i != 2 && i != 3) continue;
        Fused f = make_fused(t, cs[i], seed);
        for (int64_t M : {1, 2, 3, 5, 8, 11, 1})
          run_and_check(f, cs[i], M, seed++, fmt::format("fused_gemv {} {} M {}", fg, name(t, cs[i]), M));
      }
    }
}

TEST(LinearGgmlFused, DecodeIsOneDispatchWhenFused) {
  // M = 1: norm + GEMV + GLU in one dispatch with fused_gemv; three without. The same graph then takes 9 rows.
  const Case c{768, 74, true, false, false, 1};
  for (bool fg : {true, false}) {
    Fused f;
    {
      webgpu::ScopedTuning scoped(gpu(), tuned(fg));
      f = make_fused(GgmlType::Q4_K, c, 7);
    }
    int step = 0;
    for (int64_t M : {1, 9, 1}) {
      run_and_check(f, c, M, uint32_t(40 + step++), fmt::format("fused_gemv {} M {}", fg, M));
      if (M == 1) EXPECT_EQ(f.exe->dispatch_count(true), fg ? 1u : 3u);
    }
  }
}

// The GPUs' rows rule for a GEMV with the norm folded in (ggml_gemv_norm_rpt: 4 rows of W per invocation from
// ggml_gemv_norm_n rows; lowered here to 64 so small weights take it) on the types whose chunks hold the most
// values (Q6_K, and Q5_0 with its funnelled block loads), norm + SwiGLU and norm + residual, f32 x and int8 x
// staged, against the composition; a weight below the threshold (N 37, its own build) keeps the forced 1 row.
TEST(LinearGgmlFused, NormRuleFourRowsOfW) {
  uint32_t seed = 900;
  for (uint32_t mode : {0u, 2u}) {
    if (mode == 2 && !gpu().has_packed_dot()) continue;
    webgpu::Tuning tun = tuned(true, mode);
    tun.force_ggml_gemv_rpt(1);
    tun.ggml_gemv_norm_rpt = 4, tun.ggml_gemv_norm_n = 64;
    tun.ggml_gemv_stream = false;  // the GPUs' rule (CPU adapters stream the one-row route at their own rows)
    ASSERT_EQ(tun.ggml_gemv_rpt_for(14, 74, true), 4u);
    ASSERT_EQ(tun.ggml_gemv_rpt_for(14, 37, true), 1u);
    for (GgmlType t : {GgmlType::Q6_K, GgmlType::Q5_0}) {
      const int64_t be = ops::ggml_gpu_block(int64_t(t))->elems;
      for (const Case& c : {Case{3 * be, 74, true, false, false, 1}, Case{5 * be, 70, true, true, false, 0},
                            Case{3 * be, 37, true, false, true, 0}}) {
        Fused f;
        {
          webgpu::ScopedTuning scoped(gpu(), tun);
          f = make_fused(t, c, seed);
        }
        for (int64_t M : {1, 2, 1})
          run_and_check(f, c, M, seed++, fmt::format("norm rule mode {} {} M {}", mode, name(t, c), M), mode != 0);
        // The rows the rule chose, from the decode route's workgroups: 8 * RPT rows each (a GLU: 4 * RPT pairs).
        const int64_t rpt = c.N >= 64 ? 4 : 1, per_wg = c.act ? 4 * rpt : 8 * rpt, n = c.act ? c.N / 2 : c.N;
        EXPECT_EQ(route0_workgroups(*f.exe), (n + per_wg - 1) / per_wg) << name(t, c) << " mode " << mode;
      }
    }
  }
}

// The block GEMM route (gemm_big.wgsl B_MODE 2, the Tiled GEMM kind; forced here on any adapter) for M >
// gemv_max_rows: the norm and the GLU as their own dispatches, the residual as the GEMM's bias term.
TEST(LinearGgmlFused, GemmRouteSideDispatches) {
  webgpu::Tuning tun = tuned(true);
  tun.gemm.kind = webgpu::GemmTuning::Kind::Tiled;
  webgpu::ScopedTuning scoped(gpu(), tun);
  uint32_t seed = 300;
  for (GgmlType t : {GgmlType::Q4_K, GgmlType::Q6_K})
    for (const Case& c : cases(ops::ggml_gpu_block(int64_t(t))->elems)) {
      if (c.K != 3 * ops::ggml_gpu_block(int64_t(t))->elems) continue;  // norm + bias, residual, SwiGLU
      Fused f = make_fused(t, c, seed, 20);
      for (int64_t M : {20, 1}) run_and_check(f, c, M, seed++, fmt::format("gemm route {} M {}", name(t, c), M));
    }
}

// The int8 GEMM route (quantize_q8 + gemm_mmq_ggml.wgsl; forced on any adapter with packed int8 dot products)
// for M > gemv_max_rows: it must quantize the NORMALIZED x, add the residual as its bias term and write the GLU's
// input scratch, as the f32 GEMM route does (the norm and GLU dispatches join its route group).
TEST(LinearGgmlFused, Int8GemmRouteSideDispatches) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed int8 dot products on this adapter";
  webgpu::Tuning tun = tuned(true);
  tun.gemm.kind = webgpu::GemmTuning::Kind::Tiled;
  tun.gemm.mmq_ggml_min_tiles = 1;
  tun.gemm.mmq_ggml_min_rows = 0;  // the int8 GEMM at every M above the GEMV route
  webgpu::ScopedTuning scoped(gpu(), tun);
  uint32_t seed = 500;
  for (GgmlType t : {GgmlType::Q4_K, GgmlType::Q6_K})
    for (const Case& c : cases(ops::ggml_gpu_block(int64_t(t))->elems)) {
      if (c.K != 3 * ops::ggml_gpu_block(int64_t(t))->elems) continue;  // norm + bias, residual, SwiGLU
      Fused f = make_fused(t, c, seed, 20);
      for (int64_t M : {20, 1, 13})
        run_and_check(f, c, M, seed++, fmt::format("int8 gemm route {} M {}", name(t, c), M), M > 8);
    }
}

// The int8-activation GEMV (policy ggml_gemv_int8, forced), both modes: 1 runs the norm as its own dispatch and
// quantizes the NORMALIZED x (quantize_q8.wgsl); 2 normalizes and quantizes inside gemv_kq.wgsl; both keep the
// residual and GLU epilogues there: every combination on Q4_K and Q6_K in both modes, norm + residual and norm +
// SwiGLU on the other types in mode 2 (their chunk decoders feed the same hooks), rows 1 and 8 (routes 0 and 3) and
// 11 (two layers of 8 on CPU adapters, the f32 GEMM on GPUs), with the int8 rounding bound of run_and_check;
// decode with norm + SwiGLU is 3 dispatches in mode 1 (norm, quantize, GEMV with the GLU) and 1 in mode 2.
TEST(LinearGgmlFused, Int8GemvRoute) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed int8 dot products on this adapter";
  uint32_t seed = 700;
  for (uint32_t mode : {1u, 2u})
    for (GgmlType t : kFusedTypes) {
      const bool full = t == GgmlType::Q4_K || t == GgmlType::Q6_K;
      if (!full && mode == 1) continue;
      webgpu::Tuning tun = tuned(true, mode);
      tun.gemm.mmq_ggml_min_tiles = 0;
      const std::vector<Case> cs = cases(ops::ggml_gpu_block(int64_t(t))->elems);
      for (size_t i = 0; i < cs.size(); ++i) {
        if (!full && i != 2 && i != 3) continue;
        Fused f;
        {
          webgpu::ScopedTuning scoped(gpu(), tun);
          f = make_fused(t, cs[i], seed);
        }
        const bool cpu_gemm = tun.gemm.kind == webgpu::GemmTuning::Kind::Cpu;  // M 11: GEMV layers, else f32 GEMM
        for (int64_t M : {1, 8, 11})
          run_and_check(f, cs[i], M, seed++, fmt::format("int8 gemv mode {} {} M {}", mode, name(t, cs[i]), M),
                        M <= 8 || cpu_gemm);
        if (i == 3) {
          run_and_check(f, cs[i], 1, seed++, fmt::format("int8 gemv mode {} {} M 1", mode, name(t, cs[i])), true);
          EXPECT_EQ(f.exe->dispatch_count(true), mode == 1 ? 3u : 1u) << name(t, cs[i]);
        }
      }
    }
}

// Two-type stacks (wtype [t0, rows0, t1, rows1]; the decoder's [Wq; Wk; Wv] of a Q4_K_M layer whose attn_v is
// Q6_K): one gemv_kq dispatch (WTYPE2) when the first part's rows are whole workgroups (64 rows: 8 x RPT for every
// RPT up to 8), one dispatch per part otherwise (40 rows); the second part odd (37, 21 rows) so its last workgroup
// is partial. Pairs: Q4_K / Q6_K (both K-quant chunk layouts), Q8_0 / Q5_K (a 32-element type first), Q6_K / Q4_K
// (64 rows of 630 bytes end 128 bytes short of the second part's 256-byte offset, so that offset is not the rows'
// end; and the 16-byte-aligned vec4 reads of the int8 Q4_K chunk in the second part). Norm + bias (q/k/v) and the
// residual epilogue, rows of x 1 .. 11 (all four GEMV routes and the GEMM or two-layer route); f32 x, and int8 x
// staged (mode 2) with the int8 rounding bound.
TEST(LinearGgmlFused, TwoTypeStackMatchesTheComposition) {
  struct Stack {
    GgmlType t, t2;
    int64_t rows1, rows2;
  };
  const Stack stacks[] = {{GgmlType::Q4_K, GgmlType::Q6_K, 64, 37}, {GgmlType::Q4_K, GgmlType::Q6_K, 40, 37},
                          {GgmlType::Q8_0, GgmlType::Q5_K, 64, 21}, {GgmlType::Q6_K, GgmlType::Q4_K, 64, 21}};
  uint32_t seed = 900;
  for (uint32_t mode : {0u, 2u}) {
    if (mode && !gpu().has_packed_dot()) continue;
    for (const Stack& sk : stacks)
      for (int kind = 0; kind < 2; ++kind) {
        const int64_t N = sk.rows1 + sk.rows2;
        const Case c = kind == 0 ? Case{768, N, true, false, true, 0} : Case{768, N, false, true, false, 0};
        // Kept few for lavapipe's pipeline compiles: the residual case on the first stack only; Q4_K / Q6_K and
        // Q6_K / Q4_K in mode 2.
        if (kind == 1 && (mode || &sk != &stacks[0])) continue;
        if (mode && (sk.rows1 != 64 || sk.t == GgmlType::Q8_0)) continue;
        webgpu::Tuning tun = tuned(true, mode);
        tun.gemm.mmq_ggml_min_tiles = 0;
        Fused f;
        {
          webgpu::ScopedTuning scoped(gpu(), tun);
          f = make_fused(sk.t, c, seed, 11, Part2{sk.t2, sk.rows2});
        }
        const std::string what = fmt::format("mode {} {} {} + {} {} norm {}", mode, ggml_type_name(sk.t), sk.rows1,
                                             ggml_type_name(sk.t2), sk.rows2, c.norm);
        const bool cpu_gemm = tun.gemm.kind == webgpu::GemmTuning::Kind::Cpu;
        for (int64_t M : {1, 2, 5, 8, 11, 1}) {
          run_and_check(f, c, M, seed++, fmt::format("{} M {}", what, M), mode && (M <= 8 || cpu_gemm));
          if (M == 1) EXPECT_EQ(f.exe->dispatch_count(true), sk.rows1 == 64 ? 1u : 2u) << what;
        }
      }
  }
}

// A two-type stack on the GEMM routes (the f32 block GEMM, the int8 GEMM; forced on any adapter) and with its first
// part split into binding chunks (dispatches per chunk and part): every part keeps its own type.
TEST(LinearGgmlFused, TwoTypeStackGemmRoutesAndBindingChunks) {
  const Case c{768, 601 + 37, true, false, true, 0};
  uint32_t seed = 950;
  for (int variant = 0; variant < 3; ++variant) {
    if (variant == 1 && !gpu().has_packed_dot()) continue;
    webgpu::Tuning tun = tuned(true);
    if (variant < 2) tun.gemm.kind = webgpu::GemmTuning::Kind::Tiled;
    tun.gemm.mmq_ggml_min_tiles = variant == 1 ? 1 : 0;
    tun.gemm.mmq_ggml_min_rows = 0;  // the int8 GEMM at every M above the GEMV route
    if (variant == 2) tun.max_binding_bytes = 300 * 432;  // Q4_K rows of 432 B: chunks of 256, 256, 89 rows
    Fused f;
    {
      webgpu::ScopedTuning scoped(gpu(), tun);
      f = make_fused(GgmlType::Q4_K, c, seed, 20, Part2{GgmlType::Q6_K, 37});
    }
    for (int64_t M : {20, 1, 3})
      run_and_check(f, c, M, seed++, fmt::format("variant {} M {}", variant, M), variant == 1 && M > 8);
    if (variant == 2) EXPECT_EQ(f.exe->dispatch_count(true), 4u);  // 3 chunks of Q4_K rows, 1 of Q6_K (norm fused)
  }
}

TEST(LinearGgmlFused, WeightsSplitIntoBindingChunks) {
  // 601 rows of 3 Q4_K blocks (432 B) at a limit of 300 rows -> chunks of 256, 256, 89 rows. The residual
  // epilogue works per chunk; the GLU pairs rows across chunks, so it runs as its own dispatch.
  for (int act : {0, 1}) {
    const Case c{768, act ? 602 : 601, true, act == 0, false, act};
    webgpu::Tuning t = tuned(true);
    t.max_binding_bytes = 300 * 432;
    Fused f;
    {
      webgpu::ScopedTuning scoped(gpu(), t);
      f = make_fused(GgmlType::Q4_K, c, 17);
    }
    run_and_check(f, c, 5, 4, fmt::format("split act {} M 5", act));
    run_and_check(f, c, 1, 3, fmt::format("split act {}", act));
    EXPECT_EQ(f.exe->dispatch_count(true), act ? 4u : 3u);  // 3 GEMV chunks (+ the GLU)
  }
}

TEST(LinearGgmlFused, BadArgumentsGiveClearErrors) {
  auto build = [](int64_t wtype, int64_t nw_len, bool res, bool bias, int act, int64_t N) {
    Graph g;
    const int64_t K = 256;
    ValueId x = g.input("x", DType::F32, {1, K});
    const int64_t words = (N * (wtype == 2 ? 8 * 18 : 144) + 3) / 4;
    ValueId w = g.constant("w", DType::U32, {words}, ConstantData::from_vector(std::vector<uint32_t>(size_t(words))));
    ValueId nw = nw_len ? g.constant("nw", DType::F32, {nw_len}, ConstantData::from_vector(std::vector<float>(size_t(nw_len)))) : g.none();
    ValueId b = bias ? g.constant("b", DType::F32, {N}, ConstantData::from_vector(std::vector<float>(size_t(N)))) : g.none();
    ValueId r = res ? g.input("r", DType::F32, {1, N}) : g.none();
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("wgrt.linear_ggml_fused.default", {x, w, g.int_value(wtype), g.int_value(N), b, nw, g.real(1e-5), r,
                                            g.int_value(act), out}, "lin");
    ExecutableGraph::build(std::move(g), gpu());
  };
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([&] { build(12, 255, false, false, 0, 4); }, "norm_weight 'nw' [255] must be [256]");
  expect_error<InvalidArgument>([&] { build(12, 256, true, false, 1, 4); }, "a residual with a GLU activation is not supported");
  expect_error<InvalidArgument>([&] { build(12, 0, true, true, 0, 4); }, "a residual with a bias is not supported");
  expect_error<InvalidArgument>([&] { build(12, 0, false, false, 3, 4); }, "act must be 0 (none), 1 (silu GLU) or 2");
  expect_error<InvalidArgument>([&] { build(12, 256, false, false, 1, 5); }, "a GLU needs an even number of weight rows");
  expect_error<InvalidArgument>([&] { build(2, 0, false, false, 0, 4); }, "weight type id 2 has no fused kernel");
  // Two-type stacks (wtype as a list): wrong length, rows not summing to N, a GLU, a type without a fused kernel.
  auto build_list = [](IntList parts, int act, int64_t N, int64_t words) {
    Graph g;
    ValueId x = g.input("x", DType::F32, {1, 256});
    ValueId w = g.constant("w", DType::U32, {words}, ConstantData::from_vector(std::vector<uint32_t>(size_t(words))));
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("wgrt.linear_ggml_fused.default", {x, w, g.int_list(std::move(parts)), g.int_value(N), g.none(), g.none(),
                                            g.real(1e-5), g.none(), g.int_value(act), out}, "lin");
    ExecutableGraph::build(std::move(g), gpu());
  };
  // 2 rows of Q4_K (288 B) then 2 of Q6_K (212-byte GPU blocks) from byte 512: 936 bytes = 234 words.
  build_list({12, 2, 14, 2}, 0, 4, 234);
  expect_error<InvalidArgument>([&] { build_list({12, 2, 14}, 0, 4, 234); }, "must be [type, rows] or [type_0");
  expect_error<InvalidArgument>([&] { build_list({12, 2, 14, 3}, 0, 4, 234); }, "rows sum to 5, not N = 4");
  expect_error<InvalidArgument>([&] { build_list({12, 2, 14, 2}, 1, 4, 234); }, "a GLU pairs rows of one weight type");
  expect_error<InvalidArgument>([&] { build_list({12, 2, 14, 2}, 0, 4, 233); }, "must be u32 [234]");
  expect_error<InvalidArgument>([&] { build_list({12, 2, 2, 2}, 0, 4, 200); }, "weight type id 2 has no fused kernel");
  expect_error<InvalidArgument>([&] { build_list({12, 2, 99, 2}, 0, 4, 200); }, "weight part 1: type id 99 has no GPU kernel");
  expect_error<InvalidArgument>([&] { build_list({12, 2, 12, 2}, 0, 4, 200); }, "the two weight parts have the same type 12");
}
