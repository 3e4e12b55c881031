// wgrt.linear_ggml_rope_qkv.default (the decoder layer's q/k/v linear over the stacked [Wq; Wk; Wv] in a block
// format, its RMSNorm before it, RoPE and the KV-cache write after it: gemv_kq_rope.wgsl on the GEMV routes, the
// GEMM and rope_qkv.wgsl on the GEMM routes) on a real adapter against a plain C++ reference: tref::rms_norm, a
// double GEMV over the weights as src/formats decodes them, ref::rope (the double formula) and ref::cache_write.
// Cases: rotate-half (EPI 4: pairs 32 rows apart in one workgroup) and interleaved pairs (EPI 5), NoPE (no
// tables), one type and a two-type stack (Q4_K q/k with Q6_K v), N 48 (head dim 12: a workgroup's run of pairs
// crosses heads; CPU adapters lower 4 rows of W per invocation to 2), N 30 (no workgroup of pairs fits: the GEMV
// then rope_qkv.wgsl), 1, 3, 8 and 11 tokens (the four GEMV routes and the GEMM or two-layer route), positions 0,
// odd and the last slots, int8 x staged (mode 2), the GEMM routes forced (f32 tiled and int8), the context limit
// (LimitError, caches untouched, the graph usable) and bad arguments; f16 caches (each value within 2^-10 of the
// reference beyond the f32 bound, and an f16); a q/k/v bias after the norm weight (Qwen2) on every route.
// Tolerance per output element: 2e-5 * (m_a + m_b) + 1e-5 (m: the sum over k of |h_k W_nk| of the two rows a
// rotation mixes; the table values are f32 roundings of the double formula, under 1e-7 relative), plus the int8
// rounding bound of linear_ggml_fused_test.cpp where x is int8.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "ggml_test_blocks.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops_a_test_util.h"
#include "ops/linear/linear_ggml.h"
#include "ops/rope/rope_tables.h"
#include "reference/attention_ref.h"
#include "reference/ops_a_reference.h"
#include "util/half.h"
#include "webgpu/device.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;
namespace tref = wgrt::test::ref;  // rms_norm, random_floats (ops_a_reference.h); wgrt::ref: rope, cache_write

namespace {

constexpr double kEps = 1e-5, kRel = 2e-5, kTheta = 10000.0;

struct Spec {
  GgmlType t;
  std::optional<GgmlType> t_v;  // the v rows in another type (a two-type stack)
  int64_t K, Hq, Hkv, D, C;
  bool hf, rotate;
  DType kv = DType::F32;  // the caches' dtype (F16: kv_f16.wgsl, two pairs per epilogue invocation)
  bool bias = false;      // a q/k/v bias after the norm weight (norm_weight [Kb + N], Kb = K rounded up to 64)
};

struct RopeLinear {
  Spec s;
  int64_t N = 0;
  std::vector<float> w, nw, bias;  // bias: [N] or empty
  ValueId x = -1, pos = -1, q_out = -1, kc = -1, vc = -1;
  std::unique_ptr<ExecutableGraph> exe;
  std::vector<float> kref, vref;  // the caches as the reference has written them
  std::vector<double> ktol, vtol;  // and each element's tolerance from the step that wrote it
};

RopeLinear make(const Spec& s, uint64_t seed, int64_t s_max = 11) {
  RopeLinear r;
  r.s = s;
  r.N = (s.Hq + 2 * s.Hkv) * s.D;
  std::vector<std::pair<int64_t, int64_t>> parts = {{int64_t(s.t), s.t_v ? (s.Hq + s.Hkv) * s.D : r.N}};
  if (s.t_v) parts.push_back({int64_t(*s.t_v), s.Hkv * s.D});
  test::StackedBlocks sb = test::random_stack(parts, s.K, seed);
  r.w = std::move(sb.w);
  std::vector<uint32_t> words = std::move(sb.words);
  r.nw = tref::random_floats(size_t(s.K), uint32_t(seed) + 2, 0.5f, 1.5f);
  Graph g;
  r.x = g.input("x", DType::F32, {1, s_max, s.K});
  const int64_t nwords = int64_t(words.size());
  ValueId w = g.constant("w", DType::U32, {nwords}, ConstantData::from_vector(std::move(words)));
  std::vector<float> nwb = r.nw;
  if (s.bias) {  // the norm weight, zeros up to element Kb, then the bias
    r.bias = tref::random_floats(size_t(r.N), uint32_t(seed) + 3, -1.0f, 1.0f);
    nwb.resize(size_t(ops::rope_bias_start(s.K)), 0.0f);
    nwb.insert(nwb.end(), r.bias.begin(), r.bias.end());
  }
  const int64_t nwn = int64_t(nwb.size());
  ValueId nw = g.constant("attn_norm", DType::F32, {nwn}, ConstantData::from_vector(std::move(nwb)));
  ValueId cos = g.none(), sin = g.none(), cs = g.none();
  if (s.rotate) {
    ops::RopeTables t = ops::rope_tables(s.C, s.D, kTheta);
    std::vector<float> both;
    for (int64_t p = 0; p < s.C; ++p) {
      both.insert(both.end(), t.cos.begin() + p * s.D / 2, t.cos.begin() + (p + 1) * s.D / 2);
      both.insert(both.end(), t.sin.begin() + p * s.D / 2, t.sin.begin() + (p + 1) * s.D / 2);
    }
    cos = g.constant("cos", DType::F32, {s.C, s.D / 2}, ConstantData::from_vector(std::move(t.cos)));
    sin = g.constant("sin", DType::F32, {s.C, s.D / 2}, ConstantData::from_vector(std::move(t.sin)));
    cs = g.constant("cos_sin", DType::F32, {s.C, s.D}, ConstantData::from_vector(std::move(both)));
  }
  r.pos = g.input("input_pos", DType::I32, {1});
  ValueId p = g.symint();
  g.op("et_vk.select_as_symint.default", {r.pos, g.int_value(0), g.int_value(0), p});
  r.kc = g.state("k_cache", s.kv, {1, s.C, s.Hkv, s.D});
  r.vc = g.state("v_cache", s.kv, {1, s.C, s.Hkv, s.D});
  r.q_out = g.tensor(DType::F32, {1, s_max, s.Hq, s.D}, "q_rope");
  const ValueId wt = s.t_v ? g.int_list({parts[0].first, parts[0].second, parts[1].first, parts[1].second})
                           : g.int_value(int64_t(s.t));
  g.op("wgrt.linear_ggml_rope_qkv.default", {r.x, w, wt, g.int_value(r.N), nw, g.real(kEps), cos, sin, cs, p,
                                             g.int_value(s.Hq), g.int_value(s.Hkv), g.boolean(s.hf), r.kc, r.vc, r.q_out},
       "attn_qkv");
  g.output(r.q_out);
  r.exe = ExecutableGraph::build(std::move(g), gpu());
  r.kref.assign(size_t(s.C * s.Hkv * s.D), 0.0f);
  r.vref = r.kref;
  r.ktol.assign(r.kref.size(), 0.0);
  r.vtol = r.ktol;
  return r;
}

// Element i's rotation partner within its head.
int64_t partner(int64_t i, int64_t D, bool hf) {
  if (hf) return i < D / 2 ? i + D / 2 : i - D / 2;
  return i ^ 1;
}

// Runs M tokens at position pos and compares q_out and both caches with the reference; q8: int8 x bound.
void run_and_check(RopeLinear& r, int64_t M, int64_t pos, uint32_t seed, const std::string& what, bool q8 = false) {
  const Spec& s = r.s;
  std::vector<float> x = tref::random_floats(size_t(M * s.K), seed, -2.0f, 2.0f);
  r.exe->set_input(r.x, {1, M, s.K}, std::span<const float>(x));
  std::vector<int32_t> pv = {int32_t(pos)};
  r.exe->set_input(r.pos, {1}, std::span<const int32_t>(pv));
  r.exe->execute();
  const std::vector<float> h = tref::rms_norm(x, r.nw, s.K, kEps);
  std::vector<float> y(size_t(M * r.N));
  std::vector<double> mag(size_t(M * r.N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < r.N; ++n) {
      double acc = 0, a = 0, qe = 0;
      for (int64_t k = 0; k < s.K; ++k) {
        const double pr = double(h[size_t(m * s.K + k)]) * r.w[size_t(n * s.K + k)];
        acc += pr, a += std::fabs(pr);
      }
      for (int64_t k0 = 0; q8 && k0 < s.K; k0 += 32) {
        double amax = 0, wsum = 0;
        for (int64_t k = k0; k < k0 + 32; ++k) {
          amax = std::max(amax, double(std::fabs(h[size_t(m * s.K + k)])));
          wsum += std::fabs(r.w[size_t(n * s.K + k)]);
        }
        qe += wsum * amax / 254.0 * 1.001;
      }
      if (!r.bias.empty()) acc += r.bias[size_t(n)], a += std::fabs(r.bias[size_t(n)]);
      y[size_t(m * r.N + n)] = float(acc), mag[size_t(m * r.N + n)] = a + qe / kRel;
    }
  auto heads = [&](int64_t begin, int64_t H) {
    std::vector<float> v;
    for (int64_t m = 0; m < M; ++m) v.insert(v.end(), y.begin() + m * r.N + begin * s.D, y.begin() + m * r.N + (begin + H) * s.D);
    return v;
  };
  std::vector<float> q = heads(0, s.Hq), k = heads(s.Hq, s.Hkv), v = heads(s.Hq + s.Hkv, s.Hkv);
  if (s.rotate) {
    q = wgrt::ref::rope(q, 1, M, s.Hq, s.D, pos, kTheta, s.hf);
    k = wgrt::ref::rope(k, 1, M, s.Hkv, s.D, pos, kTheta, s.hf);
  }
  wgrt::ref::cache_write(r.kref, k, 1, M, s.Hkv, s.D, s.C, pos);
  wgrt::ref::cache_write(r.vref, v, 1, M, s.Hkv, s.D, s.C, pos);
  // Tolerance of output element (m, head block begin + hh, i).
  auto tol = [&](int64_t m, int64_t head, int64_t i) {
    const int64_t n = head * s.D + i, np = head * s.D + partner(i, s.D, s.hf);
    const bool rotated = s.rotate && head < s.Hq + s.Hkv;
    return kRel * (mag[size_t(m * r.N + n)] + (rotated ? mag[size_t(m * r.N + np)] : 0.0)) + 1e-5;
  };
  ASSERT_EQ(r.exe->dims(r.q_out), (Dims{1, M, s.Hq, s.D})) << what;
  const std::vector<float> gq = r.exe->read_f32(r.q_out), gk = r.exe->read_f32(r.kc), gv = r.exe->read_f32(r.vc);
  int bad = 0;
  auto cmp = [&](float got, float want, double t, const std::string& where) {
    if (!(std::fabs(got - want) <= t) && bad++ < 3) ADD_FAILURE() << what << " " << where << ": gpu " << got << " ref " << want;
  };
  // An f16 cache element: the f32 tolerance, plus its rounding to f16 (under 2^-11 relative; 2^-10 allowed), and
  // the value must be an f16 (the caches are not f32 underneath).
  const bool f16 = s.kv == DType::F16;
  auto cmp_cache = [&](float got, float want, double t, const std::string& where) {
    cmp(got, want, t + (f16 ? std::fabs(want) / 1024 : 0.0), where);
    if (f16 && f16_to_f32(f32_to_f16(got)) != got && bad++ < 3) ADD_FAILURE() << what << " " << where << ": " << got << " is no f16";
  };
  for (int64_t m = 0; m < M; ++m)
    for (int64_t hh = 0; hh < s.Hq; ++hh)
      for (int64_t i = 0; i < s.D; ++i) {
        const size_t o = size_t((m * s.Hq + hh) * s.D + i);
        cmp(gq[o], q[o], tol(m, hh, i), fmt::format("q m {} head {} i {}", m, hh, i));
      }
  for (int64_t c = 0; c < s.C; ++c)  // every cache row: this step's, earlier steps' and the untouched (0) ones
    for (int64_t hh = 0; hh < s.Hkv; ++hh)
      for (int64_t i = 0; i < s.D; ++i) {
        const size_t o = size_t((c * s.Hkv + hh) * s.D + i);
        const int64_t m = c - pos;
        if (m >= 0 && m < M) r.ktol[o] = tol(m, s.Hq + hh, i), r.vtol[o] = tol(m, s.Hq + s.Hkv + hh, i);
        cmp_cache(gk[o], r.kref[o], r.ktol[o], fmt::format("k row {} head {} i {}", c, hh, i));
        cmp_cache(gv[o], r.vref[o], r.vtol[o], fmt::format("v row {} head {} i {}", c, hh, i));
      }
  EXPECT_EQ(bad, 0) << what;
}

webgpu::Tuning tuned(uint32_t int8_gemv = 0) {
  webgpu::Tuning t = gpu().tuning();
  t.fused_gemv = true;
  t.ggml_gemv_int8 = int8_gemv;
  t.ggml_gemv_int8_staged_rows = 8;
  t.gemm.mmq_ggml_min_tiles = 0;  // M > 8 on the f32 routes (the int8 GEMM where a test asks for it)
  return t;
}

}  // namespace

// Every GEMV route (1, 3, 8 tokens) and 11 tokens (two layers of 8 on CPU adapters, the GEMM on GPUs), at
// position 0, then on from an odd one, then the last slots; one dispatch for a decode step.
TEST(LinearGgmlRope, MatchesNormLinearRopeAndCacheWrite) {
  const Spec specs[] = {
      {GgmlType::Q4_K, std::nullopt, 768, 4, 2, 64, 40, true, true},             // rotate-half, pairs 32 apart
      {GgmlType::Q4_K, GgmlType::Q6_K, 512, 6, 2, 32, 40, false, true},          // interleaved, two-type stack
      {GgmlType::Q8_0, std::nullopt, 96, 4, 2, 16, 40, true, false},             // NoPE
      {GgmlType::Q8_0, std::nullopt, 96, 4, 2, 16, 40, true, true},              // the same with RoPE
      {GgmlType::Q8_0, std::nullopt, 64, 2, 1, 12, 40, true, true},              // N 48: runs of pairs cross heads
      {GgmlType::Q8_0, std::nullopt, 64, 3, 1, 6, 40, true, true},               // N 30: no epilogue fits
  };
  uint32_t seed = 10;
  for (const Spec& s : specs) {
    RopeLinear r;
    {
      webgpu::ScopedTuning scoped(gpu(), tuned());
      r = make(s, seed);
    }
    const std::string what = fmt::format("{}{} D {} hf {} rotate {}", ggml_type_name(s.t), s.t_v ? "+Q6_K" : "", s.D, s.hf,
                                         s.rotate);
    int64_t pos = 0;
    for (int64_t M : {3, 1, 8, 11, 1}) {
      run_and_check(r, M, pos, seed++, fmt::format("{} M {} pos {}", what, M, pos));
      // One dispatch; two (the GEMV, then rope_qkv.wgsl) where N is no whole number of workgroups even at 1 row of
      // W per invocation (8 rows).
      const int64_t N = (s.Hq + 2 * s.Hkv) * s.D;
      if (M == 1) EXPECT_EQ(r.exe->dispatch_count(true), N % 8 == 0 ? 1u : 2u) << what;
      pos += M + 2;
    }
    run_and_check(r, 3, s.C - 3, seed++, what + " last slots");
    run_and_check(r, 1, s.C - 1, seed++, what + " last slot");
  }
}

// A q/k/v bias (Qwen2) after the norm weight: in the epilogue (both pair layouts, a two-type stack, NoPE, K 96 whose
// bias starts at element 128, f16 caches), on the GEMV route that writes the projection first and binds the bias as
// a range of the vector (N 30, K 96), and with int8 x staged by the workgroups (mode 2) or from the quantize pass
// with the norm its own dispatch (mode 1); one dispatch per decode step. (The GEMM routes with a bias:
// GemmRoutesThenRopeDispatch.)
TEST(LinearGgmlRope, QkvBiasAfterTheNormWeight) {
  const Spec specs[] = {
      {GgmlType::Q4_K, std::nullopt, 256, 4, 2, 64, 40, true, true, DType::F32, true},
      {GgmlType::Q4_K, GgmlType::Q6_K, 512, 6, 2, 32, 40, false, true, DType::F16, true},
      {GgmlType::Q8_0, std::nullopt, 96, 4, 2, 16, 40, true, false, DType::F32, true},
      {GgmlType::Q8_0, std::nullopt, 96, 2, 1, 12, 40, true, true, DType::F16, true},
      {GgmlType::Q8_0, std::nullopt, 96, 3, 1, 6, 40, true, true, DType::F32, true},  // N 30: GEMV then rope_qkv
  };
  uint32_t seed = 400;
  for (const Spec& s : specs) {
    RopeLinear r;
    {
      webgpu::ScopedTuning scoped(gpu(), tuned());
      r = make(s, seed);
    }
    const std::string what = fmt::format("bias {}{} K {} D {} hf {} rotate {}", ggml_type_name(s.t), s.t_v ? "+Q6_K" : "",
                                         s.K, s.D, s.hf, s.rotate);
    int64_t pos = 0;
    for (int64_t M : {1, 3, 8, 11}) {
      run_and_check(r, M, pos, seed++, fmt::format("{} M {} pos {}", what, M, pos));
      if (M == 1) EXPECT_EQ(r.exe->dispatch_count(true), r.N % 8 == 0 ? 1u : 2u) << what;
      pos += M + 2;
    }
    run_and_check(r, 1, s.C - 1, seed++, what + " last slot");
  }
  for (uint32_t mode : {2u, 1u}) {  // int8 x: staged by each workgroup, or from the quantize pass
    if (!gpu().has_packed_dot()) break;
    RopeLinear r;
    {
      webgpu::ScopedTuning scoped(gpu(), tuned(mode));
      r = make({GgmlType::Q4_K, GgmlType::Q6_K, 512, 6, 2, 32, 40, true, true, DType::F32, true}, 440 + mode);
    }
    run_and_check(r, 1, 4, 441, fmt::format("bias int8 mode {} M 1", mode), true);
    run_and_check(r, 3, 9, 442, fmt::format("bias int8 mode {} M 3", mode), true);
  }
}

// f16 caches: the epilogue's two-pair form (gemv_kq_rope.wgsl with kv_f16.wgsl) for both pair layouts (two-type
// stacks), NoPE and heads of 12 (runs of pairs crossing heads), 1, 3 and 11 tokens; the GEMM route's rope_qkv.wgsl;
// D 6 is refused.
TEST(LinearGgmlRope, F16Caches) {
  const Spec specs[] = {
      {GgmlType::Q4_K, GgmlType::Q6_K, 256, 2, 1, 64, 40, true, true, DType::F16},
      {GgmlType::Q4_K, GgmlType::Q6_K, 256, 6, 2, 32, 40, false, true, DType::F16},
      {GgmlType::Q8_0, std::nullopt, 96, 4, 2, 16, 40, true, false, DType::F16},
      {GgmlType::Q8_0, std::nullopt, 64, 2, 1, 12, 40, true, true, DType::F16},
      {GgmlType::Q8_0, std::nullopt, 64, 2, 1, 12, 40, false, true, DType::F16},
  };
  uint32_t seed = 200;
  for (const Spec& s : specs) {
    RopeLinear r;
    {
      webgpu::ScopedTuning scoped(gpu(), tuned());
      r = make(s, seed);
    }
    const std::string what = fmt::format("f16 {}{} D {} hf {} rotate {}", ggml_type_name(s.t), s.t_v ? "+Q6_K" : "", s.D,
                                         s.hf, s.rotate);
    int64_t pos = 0;
    for (int64_t M : {3, 1, 11}) {
      run_and_check(r, M, pos, seed++, fmt::format("{} M {} pos {}", what, M, pos));
      if (M == 1) EXPECT_EQ(r.exe->dispatch_count(true), 1u) << what << ": RoPE and the f16 write in the epilogue";
      pos += M + 2;
    }
    run_and_check(r, 1, s.C - 1, seed++, what + " last slot");
  }
  webgpu::Tuning t = tuned();
  t.gemm.kind = webgpu::GemmTuning::Kind::Tiled;
  t.gemm.mmq_ggml_min_tiles = 0;
  const Spec g{GgmlType::Q4_K, std::nullopt, 256, 2, 1, 64, 40, true, true, DType::F16};
  RopeLinear r;
  {
    webgpu::ScopedTuning scoped(gpu(), t);
    r = make(g, 300, 20);
  }
  run_and_check(r, 20, 0, 301, "f16 GEMM route M 20");
  try {
    make({GgmlType::Q8_0, std::nullopt, 64, 3, 1, 6, 40, true, true, DType::F16}, 302);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4"), std::string::npos) << e.what();
  }
}

// Int8 x staged by each workgroup (mode 2, after the fused norm) on the GEMV routes.
TEST(LinearGgmlRope, Int8StagedX) {
  if (!gpu().has_packed_dot()) GTEST_SKIP() << "no packed int8 dot products on this adapter";
  const Spec s{GgmlType::Q4_K, GgmlType::Q6_K, 512, 6, 2, 32, 40, true, true};
  RopeLinear r;
  {
    webgpu::ScopedTuning scoped(gpu(), tuned(2));
    r = make(s, 70);
  }
  run_and_check(r, 1, 4, 71, "int8 M 1", true);
  run_and_check(r, 3, 9, 72, "int8 M 3", true);
  EXPECT_EQ(r.exe->dispatch_count(true), 1u);
}

// The GPUs' narrow rule (ggml_gemv_narrow_n: 1 row of W per invocation below that many rows; on here for every
// width, the other rules off): the epilogue's workgroups of 8 rows with rotate-half pairs 32 apart, interleaved
// pairs in a two-type stack and rotate-half runs of pairs that cross heads (N 48), f32 x and int8 x staged; one
// dispatch per decode step.
TEST(LinearGgmlRope, OneRowOfWPerInvocation) {
  const Spec specs[] = {
      {GgmlType::Q4_K, std::nullopt, 768, 4, 2, 64, 40, true, true},
      {GgmlType::Q4_K, GgmlType::Q6_K, 512, 6, 2, 32, 40, false, true},
      {GgmlType::Q8_0, std::nullopt, 64, 2, 1, 12, 40, true, true},
  };
  uint32_t seed = 600;
  for (uint32_t mode : {0u, 2u}) {
    if (mode == 2 && !gpu().has_packed_dot()) continue;
    webgpu::Tuning t = tuned(mode);
    t.force_ggml_gemv_rpt(2);
    t.ggml_gemv_narrow_n = int64_t(1) << 20;
    ASSERT_EQ(t.ggml_gemv_rpt_for(12, 640), 1u);
    for (const Spec& s : specs) {
      RopeLinear r;
      {
        webgpu::ScopedTuning scoped(gpu(), t);
        r = make(s, seed);
      }
      const std::string what = fmt::format("RPT 1 mode {} {} D {}", mode, ggml_type_name(s.t), s.D);
      run_and_check(r, 1, 5, seed++, what + " M 1", mode != 0);
      EXPECT_EQ(r.exe->dispatch_count(true), 1u) << what;
      run_and_check(r, 3, 9, seed++, what + " M 3", mode != 0);
    }
  }
}

// The GEMM routes (forced on any adapter): the projection into scratch, then rope_qkv.wgsl; without and with a
// q/k/v bias (a 256-byte-aligned range of the norm-and-bias vector, the GEMMs' bias term).
TEST(LinearGgmlRope, GemmRoutesThenRopeDispatch) {
  for (int variant = 0; variant < 4; ++variant) {
    if (variant % 2 == 1 && !gpu().has_packed_dot()) continue;
    const Spec s{GgmlType::Q4_K, std::nullopt, 768, 4, 2, 64, 40, true, true, DType::F32, variant >= 2};
    webgpu::Tuning t = tuned();
    t.gemm.kind = webgpu::GemmTuning::Kind::Tiled;
    t.gemm.mmq_ggml_min_tiles = variant % 2 == 1 ? 1 : 0;
    t.gemm.mmq_ggml_min_rows = 0;  // the int8 GEMM at every M above the GEMV route
    RopeLinear r;
    {
      webgpu::ScopedTuning scoped(gpu(), t);
      r = make(s, 80 + variant, 20);
    }
    run_and_check(r, 20, 0, 90, fmt::format("variant {} M 20", variant), variant % 2 == 1);
    run_and_check(r, 1, 20, 91, fmt::format("variant {} M 1", variant));
    run_and_check(r, 13, 21, 92, fmt::format("variant {} M 13", variant), variant % 2 == 1);
  }
}

TEST(LinearGgmlRope, ContextLimitLeavesTheCachesAndTheGraphUsable) {
  const Spec s{GgmlType::Q8_0, std::nullopt, 96, 4, 2, 16, 24, true, true};
  RopeLinear r;
  {
    webgpu::ScopedTuning scoped(gpu(), tuned());
    r = make(s, 5);
  }
  run_and_check(r, 3, 0, 6, "before");
  const std::vector<float> k0 = r.exe->read_f32(r.kc), v0 = r.exe->read_f32(r.vc);
  std::vector<float> x(size_t(2 * s.K), 0.5f);
  r.exe->set_input(r.x, {1, 2, s.K}, std::span<const float>(x));
  std::vector<int32_t> pv = {int32_t(s.C - 1)};
  r.exe->set_input(r.pos, {1}, std::span<const int32_t>(pv));
  try {
    r.exe->execute();
    FAIL() << "expected LimitError";
  } catch (const LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the cache / RoPE table length (context) 24"), std::string::npos) << e.what();
  }
  EXPECT_EQ(r.exe->read_f32(r.kc), k0);
  EXPECT_EQ(r.exe->read_f32(r.vc), v0);
  run_and_check(r, 1, 3, 7, "after");
}

TEST(LinearGgmlRope, BadArgumentsGiveClearErrors) {
  // x [1, 2, 256], Q8_0 rows of 272 bytes; Hq 2, Hkv 1, D 8: N 32.
  auto build = [](int64_t N, int64_t hq, int64_t cache_heads, bool tables, bool cs, int64_t qd, int64_t norm = 0) {
    Graph g;
    ValueId x = g.input("x", DType::F32, {1, 2, 256});
    const int64_t words = N * 272 / 4;
    ValueId w = g.constant("w", DType::U32, {words}, ConstantData::from_vector(std::vector<uint32_t>(size_t(words))));
    auto t = ops::rope_tables(8, 8, 10000.0);
    ValueId c = tables ? g.constant("c", DType::F32, {8, 4}, ConstantData::from_vector(t.cos)) : g.none();
    ValueId s = tables ? g.constant("s", DType::F32, {8, 4}, ConstantData::from_vector(t.sin)) : g.none();
    ValueId both = cs ? g.constant("cs", DType::F32, {8, 8}, ConstantData::from_vector(std::vector<float>(64))) : g.none();
    ValueId kc = g.state("kc", DType::F32, {1, 8, cache_heads, 8}), vc = g.state("vc", DType::F32, {1, 8, cache_heads, 8});
    ValueId nw = norm ? g.constant("nw", DType::F32, {norm}, ConstantData::from_vector(std::vector<float>(size_t(norm))))
                      : g.none();
    g.op("wgrt.linear_ggml_rope_qkv.default", {x, w, g.int_value(8), g.int_value(N), nw, g.real(1e-5), c, s, both,
                                               g.int_value(0), g.int_value(hq), g.int_value(1), g.boolean(true), kc, vc,
                                               g.tensor(DType::F32, {1, 2, qd, 8}, "q")}, "qkv");
    ExecutableGraph::build(std::move(g), gpu());
  };
  using wgrt::test::expect_error;
  build(32, 2, 1, true, true, 2);
  expect_error<InvalidArgument>([&] { build(40, 2, 1, true, true, 2); }, "N = 40 must be (Hq + 2 Hkv) * D");
  expect_error<InvalidArgument>([&] { build(32, 2, 2, true, true, 2); }, "must be [1, C_max, Hkv = 1, D]");
  expect_error<InvalidArgument>([&] { build(32, 2, 1, true, false, 2); }, "must all be given or all None");
  expect_error<InvalidArgument>([&] { build(32, 2, 1, true, true, 3); }, "q_out [1, 2, 3, 8] must be [1, 2, 2, 8]");
  expect_error<InvalidArgument>([&] { build(32, 3, 1, true, true, 3); }, "N = 32 must be (Hq + 2 Hkv) * D");
  build(32, 2, 1, true, true, 2, 256);       // the norm weight
  build(32, 2, 1, true, true, 2, 256 + 32);  // then the bias (K 256 is its own multiple of 64)
  expect_error<InvalidArgument>([&] { build(32, 2, 1, true, true, 2, 255); },
                                "norm_weight 'nw' [255] must be [256] (the norm weight) or [288]");
}
