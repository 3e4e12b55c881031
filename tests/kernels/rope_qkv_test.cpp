// wgrt.rope_qkv_cache (ops/rope/rope_qkv.cpp): the stacked q/k/v projection split into heads, q and k RoPE-rotated,
// k and v written into the caches, against the double-precision references (reference/attention_ref.h: rope,
// cache_write). Tolerance |gpu - ref| <= 1e-4 + 1e-3 |ref| (f32 tables, as rope_test.cpp); copied values exact.
// Odd head counts, GQA group sizes 1 / 4 / 7 / 8, B 2, odd D/2, both pair layouts, positions 0, odd, exactly full;
// a NoPE layer (no tables); v apart from the q/k stack; the whole caches are compared, so a stray write fails too.
// f16 caches against the reference rounded to f16 (attention_test_util.h kF16CacheRel; v within one f16 step).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "attention_test_util.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/rope/rope_tables.h"
#include "reference/attention_ref.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::expect_attn_close;
using wgrt::test::gpu;
using wgrt::test::randn;

namespace {

struct QkvGraph {
  int64_t B, Hq, Hkv, D, C;
  bool vsep;
  ValueId qkv, vin, pos, q_out, kc, vc;
  std::unique_ptr<ExecutableGraph> exe;

  // vsep: qkv holds q and k only, v is its own input (the op's v argument).
  QkvGraph(int64_t B_, int64_t S_max, int64_t Hq_, int64_t Hkv_, int64_t D_, int64_t C_, double theta, bool hf, bool rotate,
           bool vsep_, DType kv = DType::F32)
      : B(B_), Hq(Hq_), Hkv(Hkv_), D(D_), C(C_), vsep(vsep_) {
    Graph g;
    qkv = g.input("qkv", DType::F32, {B, S_max, (Hq + 2 * Hkv) * D});
    ValueId x = qkv;
    vin = g.none();
    if (vsep) {  // the same values, q/k and v as two tensors (slices of the stacked input)
      x = g.tensor(DType::F32, {B, S_max, (Hq + Hkv) * D}, "qk");
      g.op("aten.slice_copy.Tensor", {qkv, g.int_value(2), g.int_value(0), g.int_value((Hq + Hkv) * D), g.int_value(1), x});
      vin = g.tensor(DType::F32, {B, S_max, Hkv * D}, "v");
      g.op("aten.slice_copy.Tensor", {qkv, g.int_value(2), g.int_value((Hq + Hkv) * D), g.int_value((Hq + 2 * Hkv) * D),
                                      g.int_value(1), vin});
    }
    pos = g.input("input_pos", DType::I32, {1});
    auto t = ops::rope_tables(C, D, theta);
    ValueId fc = rotate ? g.constant("freqs_cos", DType::F32, {C, D / 2}, ConstantData::from_vector(t.cos)) : g.none();
    ValueId fs = rotate ? g.constant("freqs_sin", DType::F32, {C, D / 2}, ConstantData::from_vector(t.sin)) : g.none();
    ValueId p = g.symint();
    g.op("et_vk.select_as_symint.default", {pos, g.int_value(0), g.int_value(0), p});
    kc = g.state("k_cache", kv, {B, C, Hkv, D});
    vc = g.state("v_cache", kv, {B, C, Hkv, D});
    q_out = g.tensor(DType::F32, {B, S_max, Hq, D}, "q_rope");
    g.op("wgrt.rope_qkv_cache.default", {x, fc, fs, p, g.int_value(Hq), g.int_value(Hkv), g.boolean(hf), vin, kc, vc, q_out},
         "rope_qkv");
    g.output(q_out);
    exe = ExecutableGraph::build(std::move(g), gpu());
  }

  void run(int64_t S, const std::vector<float>& x, int32_t p) {
    exe->set_input(qkv, {B, S, (Hq + 2 * Hkv) * D}, std::span<const float>(x));
    std::vector<int32_t> pv = {p};
    exe->set_input(pos, {1}, std::span<const int32_t>(pv));
    exe->execute();
  }

  // Head block [begin, begin + H) of every token of x, as [B, S, H, D].
  std::vector<float> heads(const std::vector<float>& x, int64_t S, int64_t begin, int64_t H) const {
    std::vector<float> y;
    const int64_t W = (Hq + 2 * Hkv) * D;
    for (int64_t t = 0; t < B * S; ++t)
      y.insert(y.end(), x.begin() + t * W + begin * D, x.begin() + t * W + (begin + H) * D);
    return y;
  }
};

}  // namespace

TEST(RopeQkvCache, MatchesRopeAndCacheWriteReference) {
  struct Case {
    int64_t B, S, Hq, Hkv, D, C;
    double theta;
  };
  for (bool hf : {false, true})
    for (bool rotate : {true, false})
      for (bool vsep : {false, true})
      for (Case c : {Case{1, 5, 3, 3, 8, 13, 10000.0}, Case{2, 4, 8, 2, 16, 11, 500000.0}, Case{1, 3, 8, 1, 64, 9, 10000.0},
                     Case{1, 6, 7, 1, 6, 15, 10000.0}}) {
        if ((!rotate || vsep) && c.D != 16 && c.D != 6) continue;
        QkvGraph qg(c.B, c.S, c.Hq, c.Hkv, c.D, c.C, c.theta, hf, rotate, vsep);
        std::vector<float> kref(size_t(c.B * c.C * c.Hkv * c.D), 0.0f), vref = kref;
        uint32_t seed = 3;
        // Prefill at 0, decode at an odd position, a chunk ending exactly at the last slot, the last slot alone.
        for (auto [S, pos] : {std::pair<int64_t, int64_t>{c.S, 0}, {1, c.S | 1}, {c.S, c.C - c.S}, {1, c.C - 1}}) {
          const std::string what = fmt::format("hf={} rotate={} vsep={} B={} Hq={} Hkv={} D={} S={} pos={}", hf, rotate, vsep, c.B, c.Hq,
                                               c.Hkv, c.D, S, pos);
          const auto x = randn(size_t(c.B * S * (c.Hq + 2 * c.Hkv) * c.D), seed++);
          qg.run(S, x, int32_t(pos));
          auto q = qg.heads(x, S, 0, c.Hq), k = qg.heads(x, S, c.Hq, c.Hkv), v = qg.heads(x, S, c.Hq + c.Hkv, c.Hkv);
          if (rotate) {
            q = ref::rope(q, c.B, S, c.Hq, c.D, pos, c.theta, hf);
            k = ref::rope(k, c.B, S, c.Hkv, c.D, pos, c.theta, hf);
          }
          ref::cache_write(kref, k, c.B, S, c.Hkv, c.D, c.C, pos);
          ref::cache_write(vref, v, c.B, S, c.Hkv, c.D, c.C, pos);
          ASSERT_EQ(qg.exe->dims(qg.q_out), (Dims{c.B, S, c.Hq, c.D})) << what;
          expect_attn_close(qg.exe->read_f32(qg.q_out), q, what + " q");
          expect_attn_close(qg.exe->read_f32(qg.kc), kref, what + " k_cache");
          EXPECT_EQ(qg.exe->read_f32(qg.vc), vref) << what << " v_cache";
        }
        // Past the cache: a LimitError naming the op, nothing written; the graph stays usable.
        const auto x = randn(size_t(c.B * 2 * (c.Hq + 2 * c.Hkv) * c.D), 77);
        try {
          qg.run(2, x, int32_t(c.C - 1));
          FAIL() << "expected LimitError";
        } catch (const LimitError& e) {
          EXPECT_NE(std::string(e.what()).find("rope_qkv"), std::string::npos) << e.what();
        }
        EXPECT_THROW(qg.run(1, std::vector<float>(x.begin(), x.begin() + long(x.size() / 2)), -1), LimitError);
        expect_attn_close(qg.exe->read_f32(qg.kc), kref, "k_cache after the refused steps");
      }
}

// f16 caches (kv_f16.wgsl: each invocation takes two pairs, so that a cache word is written whole): the caches
// hold the reference values rounded to f16 (kF16CacheRel), q stays f32; both pair layouts, NoPE, v apart, GQA,
// B 2, positions 0, odd and the last slot. The rounding itself is visible (the f32 reference is not met at 1e-6).
TEST(RopeQkvCache, F16CachesHoldTheRoundedValues) {
  struct Case {
    int64_t B, S, Hq, Hkv, D, C;
  };
  for (bool hf : {false, true})
    for (bool rotate : {true, false})
      for (bool vsep : {false, true})
        for (Case c : {Case{1, 5, 3, 3, 8, 13}, Case{2, 4, 8, 2, 16, 11}, Case{1, 3, 7, 1, 64, 9}}) {
          if ((!rotate || vsep) && c.D != 16) continue;
          QkvGraph qg(c.B, c.S, c.Hq, c.Hkv, c.D, c.C, 10000.0, hf, rotate, vsep, DType::F16);
          std::vector<float> kref(size_t(c.B * c.C * c.Hkv * c.D), 0.0f), vref = kref;
          uint32_t seed = 11;
          for (auto [S, pos] : {std::pair<int64_t, int64_t>{c.S, 0}, {1, c.S | 1}, {1, c.C - 1}}) {
            const std::string what =
                fmt::format("f16 hf={} rotate={} vsep={} B={} Hq={} Hkv={} D={} S={} pos={}", hf, rotate, vsep, c.B, c.Hq, c.Hkv, c.D, S, pos);
            const auto x = randn(size_t(c.B * S * (c.Hq + 2 * c.Hkv) * c.D), seed++);
            qg.run(S, x, int32_t(pos));
            auto q = qg.heads(x, S, 0, c.Hq), k = qg.heads(x, S, c.Hq, c.Hkv), v = qg.heads(x, S, c.Hq + c.Hkv, c.Hkv);
            if (rotate) {
              q = ref::rope(q, c.B, S, c.Hq, c.D, pos, 10000.0, hf);
              k = ref::rope(k, c.B, S, c.Hkv, c.D, pos, 10000.0, hf);
            }
            ref::cache_write(kref, k, c.B, S, c.Hkv, c.D, c.C, pos);
            ref::cache_write(vref, v, c.B, S, c.Hkv, c.D, c.C, pos);
            expect_attn_close(qg.exe->read_f32(qg.q_out), q, what + " q");
            const std::vector<float> gk = qg.exe->read_f32(qg.kc), gv = qg.exe->read_f32(qg.vc);
            expect_attn_close(gk, test::f16_rounded(kref), what + " k_cache", test::kF16CacheRel);
            test::expect_f16_cache(gv, test::f16_rounded(vref), what + " v_cache (copied, then rounded)");
            double off = 0;
            for (size_t i = 0; i < gv.size(); ++i) off = std::max(off, double(std::fabs(gv[i] - vref[i])));
            EXPECT_GT(off, 1e-6) << what << ": the v cache holds unrounded f32 values";
          }
        }
  // An f16 cache needs D % 4 == 0 (pairs of pairs per invocation); the error names the fix.
  try {
    QkvGraph bad(1, 2, 2, 1, 6, 8, 10000.0, false, true, false, DType::F16);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4"), std::string::npos) << e.what();
  }
}

TEST(RopeQkvCache, RejectsBadShapes) {
  auto build = [](int64_t width, int64_t cache_heads) {
    Graph g;
    ValueId x = g.input("qkv", DType::F32, {1, 2, width});
    auto t = ops::rope_tables(8, 8, 10000.0);
    ValueId fc = g.constant("c", DType::F32, {8, 4}, ConstantData::from_vector(t.cos));
    ValueId fs = g.constant("s", DType::F32, {8, 4}, ConstantData::from_vector(t.sin));
    ValueId kc = g.state("kc", DType::F32, {1, 8, cache_heads, 8}), vc = g.state("vc", DType::F32, {1, 8, cache_heads, 8});
    g.op("wgrt.rope_qkv_cache.default", {x, fc, fs, g.int_value(0), g.int_value(4), g.int_value(2), g.boolean(false), g.none(), kc, vc,
                                         g.tensor(DType::F32, {1, 2, 4, 8}, "q")}, "bad");
    return ExecutableGraph::build(std::move(g), gpu());
  };
  EXPECT_NO_THROW(build(64, 2));
  EXPECT_THROW(build(60, 2), InvalidArgument);  // not (4 + 2 * 2) * 8
  EXPECT_THROW(build(64, 1), InvalidArgument);  // caches of 1 kv head
}
