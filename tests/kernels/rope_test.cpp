// et_vk.apply_rotary_emb(_hf): GPU vs the double-precision reference (reference/attention_ref.h) and PyTorch
// goldens (tests/golden/make_goldens_ops_b.py). Tolerance: |gpu - ref| <= 1e-4 + 1e-3 |ref| (fp32 tables).
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <random>

#include "attention_test_util.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/rope/rope_tables.h"
#include "reference/attention_ref.h"
#include "support/paths.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;
using wgrt::test::randn;
using wgrt::test::expect_attn_close;

namespace {

struct RopeGraph {
  ValueId xq, xk, pos, q_out, k_out;
  std::unique_ptr<ExecutableGraph> exe;

  RopeGraph(int64_t B, int64_t S_max, int64_t Hq, int64_t Hkv, int64_t D, int64_t c_max, double theta, bool hf) {
    Graph g;
    xq = g.input("xq", DType::F32, {B, S_max, Hq, D});
    xk = g.input("xk", DType::F32, {B, S_max, Hkv, D});
    pos = g.input("input_pos", DType::I32, {1});
    auto t = ops::rope_tables(c_max, D, theta);
    ValueId fc = g.constant("freqs_cos", DType::F32, {c_max, D / 2}, ConstantData::from_vector(t.cos));
    ValueId fs = g.constant("freqs_sin", DType::F32, {c_max, D / 2}, ConstantData::from_vector(t.sin));
    ValueId p = g.symint();
    g.op("et_vk.select_as_symint.default", {pos, g.int_value(0), g.int_value(0), p});
    q_out = g.tensor_like(DType::F32, "xq_out");
    k_out = g.tensor_like(DType::F32, "xk_out");
    g.op(hf ? "et_vk.apply_rotary_emb_hf.default" : "et_vk.apply_rotary_emb.default", {xq, xk, fc, fs, p, q_out, k_out}, "rope");
    g.output(q_out);
    g.output(k_out);
    exe = ExecutableGraph::build(std::move(g), gpu());
  }

  void run(const Dims& qd, const std::vector<float>& q, const Dims& kd, const std::vector<float>& k, int32_t p) {
    exe->set_input(xq, qd, std::span<const float>(q));
    exe->set_input(xk, kd, std::span<const float>(k));
    std::vector<int32_t> pv = {p};
    exe->set_input(pos, {1}, std::span<const int32_t>(pv));
    exe->execute();
  }
};

}  // namespace

TEST(RopeTables, MatchDoubleFormulaAndRejectBadArgs) {
  auto t = ops::rope_tables(7, 10, 10000.0);
  ASSERT_EQ(t.cos.size(), 35u);
  for (int p = 0; p < 7; ++p)
    for (int i = 0; i < 5; ++i) {
      double a = p * std::pow(10000.0, -2.0 * i / 10.0);
      EXPECT_EQ(t.cos[size_t(p * 5 + i)], float(std::cos(a)));
      EXPECT_EQ(t.sin[size_t(p * 5 + i)], float(std::sin(a)));
    }
  EXPECT_THROW(ops::rope_tables(7, 9, 10000.0), InvalidArgument);
  EXPECT_THROW(ops::rope_tables(0, 8, 10000.0), InvalidArgument);
  EXPECT_THROW(ops::rope_tables(8, 8, 0.0), InvalidArgument);
}

TEST(Rope, BothLayoutsOddShapesPositionsAndDynamicS) {
  struct Case {
    int64_t B, S, Hq, Hkv, D, c_max;
    double theta;
  };
  for (bool hf : {false, true})
    for (Case c : {Case{2, 5, 3, 1, 8, 13, 10000.0}, Case{1, 7, 4, 2, 64, 20, 500000.0}, Case{1, 3, 2, 2, 128, 9, 10000.0}}) {
      RopeGraph rg(c.B, c.S, c.Hq, c.Hkv, c.D, c.c_max, c.theta, hf);
      uint32_t seed = 1;
      // Prefill at 0, mid-context, a decode step (S = 1 on the same graph), and exactly full (pos + S == C_max).
      for (auto [S, pos] : {std::pair<int64_t, int64_t>{c.S, 0}, {c.S, c.c_max / 2 - 1}, {1, c.c_max / 2 + 2},
                            {c.S, c.c_max - c.S}, {1, c.c_max - 1}}) {
        Dims qd = {c.B, S, c.Hq, c.D}, kd = {c.B, S, c.Hkv, c.D};
        auto q = randn(size_t(numel(qd)), seed++), k = randn(size_t(numel(kd)), seed++);
        rg.run(qd, q, kd, k, int32_t(pos));
        std::string what = fmt::format("hf={} D={} S={} pos={}", hf, c.D, S, pos);
        ASSERT_EQ(rg.exe->dims(rg.q_out), qd) << what;
        expect_attn_close(rg.exe->read_f32(rg.q_out), ref::rope(q, c.B, S, c.Hq, c.D, pos, c.theta, hf), what + " q");
        expect_attn_close(rg.exe->read_f32(rg.k_out), ref::rope(k, c.B, S, c.Hkv, c.D, pos, c.theta, hf), what + " k");
      }
      // One past the table: a clear LimitError; the graph stays usable.
      Dims qd = {c.B, 1, c.Hq, c.D}, kd = {c.B, 1, c.Hkv, c.D};
      auto q = randn(size_t(numel(qd)), 99), k = randn(size_t(numel(kd)), 98);
      try {
        rg.run(qd, q, kd, k, int32_t(c.c_max));
        FAIL() << "expected LimitError";
      } catch (const LimitError& e) {
        EXPECT_NE(std::string(e.what()).find("rope"), std::string::npos) << e.what();
      }
      EXPECT_THROW(rg.run(qd, q, kd, k, -1), LimitError);
      rg.run(qd, q, kd, k, 2);
      expect_attn_close(rg.exe->read_f32(rg.q_out), ref::rope(q, c.B, 1, c.Hq, c.D, 2, c.theta, hf), "after error");
    }
}

TEST(Rope, LayoutsDifferAndRejectBadShapes) {
  // The two layouts rotate different pairs: results must differ (the test would catch a swapped flag).
  RopeGraph meta(1, 2, 2, 1, 8, 8, 10000.0, false), hf(1, 2, 2, 1, 8, 8, 10000.0, true);
  auto q = randn(32, 5), k = randn(16, 6);
  meta.run({1, 2, 2, 8}, q, {1, 2, 1, 8}, k, 3);
  hf.run({1, 2, 2, 8}, q, {1, 2, 1, 8}, k, 3);
  auto a = meta.exe->read_f32(meta.q_out), b = hf.exe->read_f32(hf.q_out);
  double diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, double(std::fabs(a[i] - b[i])));
  EXPECT_GT(diff, 1e-2);

  Graph g;
  ValueId xq = g.input("xq", DType::F32, {1, 2, 2, 8}), xk = g.input("xk", DType::F32, {1, 2, 1, 6});
  auto t = ops::rope_tables(8, 8, 10000.0);
  ValueId fc = g.constant("c", DType::F32, {8, 4}, ConstantData::from_vector(t.cos));
  ValueId fs = g.constant("s", DType::F32, {8, 4}, ConstantData::from_vector(t.sin));
  g.op("et_vk.apply_rotary_emb.default", {xq, xk, fc, fs, g.int_value(0), g.tensor_like(DType::F32), g.tensor_like(DType::F32)}, "bad_rope");
  EXPECT_THROW(ExecutableGraph::build(std::move(g), gpu()), InvalidArgument);
}

TEST(Rope, MatchesPyTorchGoldens) {
  std::ifstream f(test::source_path("tests/golden/ops_b/rope.json"));
  ASSERT_TRUE(f) << "missing golden; run tests/golden/make_goldens_ops_b.py";
  auto j = nlohmann::json::parse(f);
  ASSERT_GE(j["cases"].size(), 3u);
  for (const auto& c : j["cases"]) {
    int64_t B = c["B"], S = c["S"], Hq = c["Hq"], Hkv = c["Hkv"], D = c["D"], pos = c["pos"], c_max = c["c_max"];
    double theta = c["theta"];
    auto q = c["xq"].get<std::vector<float>>(), k = c["xk"].get<std::vector<float>>();
    for (bool hf : {false, true}) {
      RopeGraph rg(B, S, Hq, Hkv, D, c_max, theta, hf);
      rg.run({B, S, Hq, D}, q, {B, S, Hkv, D}, k, int32_t(pos));
      std::string p = hf ? "hf_" : "meta_";
      expect_attn_close(rg.exe->read_f32(rg.q_out), c[p + "q"].get<std::vector<float>>(), p + "q D=" + std::to_string(D));
      expect_attn_close(rg.exe->read_f32(rg.k_out), c[p + "k"].get<std::vector<float>>(), p + "k D=" + std::to_string(D));
    }
  }
}
