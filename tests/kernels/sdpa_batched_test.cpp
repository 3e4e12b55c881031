// wgrt.sdpa_batched and wgrt.rope_rows (the serving batch: rows of several sequences, each at its own slot
// and position) against the double-precision references (reference/attention_ref.h), applied row by row to
// the row's own cache slot (harness: sdpa_batched_util.h; the decode route's own cases: sdpa_batched_decode_test).
// Odd sizes: R 1..11 rows, 3 slots, C_max 19, GQA groups 1/3, D 6/16/40. Steps mix
// prefill chunks of one slot with decode rows of others on ONE graph, so rows see earlier steps' keys and
// this step's earlier rows of their own slot, never another slot's. wgrt.sdpa_batched_swa adds gemma's score
// soft cap and sliding window (windows 1, 3, 4 and one wider than the context), checked the same way.
// Tolerance |gpu - ref| <= 1e-4 + 1e-3 |ref|.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>
#include <random>

#include "ops/rope/rope_tables.h"
#include "sdpa_batched_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;
using wgrt::test::randn;
using wgrt::test::expect_attn_close;

using wgrt::test::Batched;
using Row = wgrt::test::BatchedRow;
using wgrt::test::prefill;
using wgrt::test::operator+;

// Both routes (tuning sdpa_batched_decode_rows 0: scores; the default: decode where D % 4 == 0, so D 6 stays on
// the scores route either way).
TEST(SdpaBatched, MixedPrefillAndDecodeRowsPerSlot) {
  struct Case {
    int64_t Hq, Hkv, D;
  };
  for (int64_t decode_rows : {int64_t(0), int64_t(1) << 30})
  for (Case c : {Case{3, 3, 16}, Case{6, 2, 40}, Case{3, 1, 6}}) {
    webgpu::Tuning tu = gpu().tuning();
    tu.sdpa_batched_decode_rows = decode_rows;
    Batched t(11, 3, c.Hq, c.Hkv, c.D, 19, 0, 0, tu);
    const std::vector<std::vector<Row>> steps = {
        prefill(2, 0, 5),                                      // slot 2 prefills 5
        prefill(2, 5, 1) + prefill(0, 0, 7),                   // slot 2 decodes beside slot 0's prefill of 7
        prefill(0, 7, 1) + prefill(2, 6, 1) + prefill(1, 0, 9),  // two decodes + slot 1's prefill: 11 rows
        prefill(1, 9, 1) + prefill(0, 8, 1) + prefill(2, 7, 1),  // three decodes
        prefill(2, 0, 4),                                      // slot 2 restarts (a new request in the slot)
        prefill(0, 9, 10),                                     // slot 0 fills to exactly C_max
        prefill(1, 10, 1)};
    for (size_t s = 0; s < steps.size(); ++s) {
      auto [got, want] = t.run(steps[s]);
      expect_attn_close(got, want, fmt::format("decode rows {} Hq={} Hkv={} D={} step {}", decode_rows, c.Hq, c.Hkv, c.D, s));
    }
  }
}

// Gemma's options per row: the window counts back from each row's own position, in its own slot.
TEST(SdpaBatched, SoftCapAndSlidingWindowPerRow) {
  struct Case {
    double softcap;
    int64_t window;
  };
  for (Case c : {Case{1.5, 0}, Case{0, 1}, Case{0, 3}, Case{2.0, 4}, Case{2.0, 64}}) {
    Batched t(11, 3, 6, 2, 40, 19, c.softcap, c.window);
    t.qscale = 4;  // scores of several units: tanh(s / 1.5) is far from s
    const std::vector<std::vector<Row>> steps = {
        prefill(2, 0, 5),
        prefill(2, 5, 1) + prefill(0, 0, 7),
        prefill(0, 7, 1) + prefill(2, 6, 1) + prefill(1, 0, 9),
        prefill(2, 0, 3) + prefill(0, 8, 8),  // slot 2 restarts beside slot 0's prefill
        prefill(0, 16, 3) + prefill(1, 9, 1)};  // slot 0 fills to exactly C_max
    for (size_t s = 0; s < steps.size(); ++s) {
      auto [got, want] = t.run(steps[s]);
      expect_attn_close(got, want, fmt::format("softcap={} window={} step {}", c.softcap, c.window, s));
    }
  }
  // The options must change the result (a kernel that ignored them would pass the plain test above).
  Batched plain(3, 1, 2, 1, 8, 9), capped(3, 1, 2, 1, 8, 9, 0.5, 2);
  plain.qscale = capped.qscale = 4;
  auto a = plain.run(prefill(0, 0, 3)).first, b = capped.run(prefill(0, 0, 3)).first;
  double diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, double(std::fabs(a[i] - b[i])));
  EXPECT_GT(diff, 1e-2);
}

TEST(SdpaBatched, BadSoftCapOrWindowIsRefusedAtBuild) {
  EXPECT_THROW(Batched(2, 1, 2, 1, 8, 5, -1.0, 0), InvalidArgument);
  EXPECT_THROW(Batched(2, 1, 2, 1, 8, 5, 0.0, -2), InvalidArgument);
}

TEST(SdpaBatched, BadSlotOrPositionIsALimitErrorAndTheGraphStaysUsable) {
  Batched t(4, 2, 2, 1, 8, 5);
  EXPECT_THROW(t.run({{2, 0}}), LimitError);
  EXPECT_THROW(t.run({{0, 5}}), LimitError);
  EXPECT_THROW(t.run({{-1, 0}}), LimitError);
  EXPECT_THROW(t.run({{0, -1}}), LimitError);
  auto [got, want] = t.run({{1, 0}, {1, 1}});
  expect_attn_close(got, want, "after errors");
}

TEST(RopeRows, EachRowAtItsOwnPosition) {
  for (bool hf : {false, true}) {
    const int64_t R = 7, Hq = 3, Hkv = 1, D = 10, C = 23;
    const double theta = hf ? 1e6 : 1e4;
    ops::RopeTables rt = ops::rope_tables(C, D, theta);
    Graph g;
    ValueId xq = g.input("xq", DType::F32, {1, 9, Hq, D}), xk = g.input("xk", DType::F32, {1, 9, Hkv, D});
    ValueId pos = g.input("pos", DType::I32, {9});
    ValueId fc = g.constant("cos", DType::F32, {C, D / 2}, ConstantData::from_vector(std::move(rt.cos)));
    ValueId fs = g.constant("sin", DType::F32, {C, D / 2}, ConstantData::from_vector(std::move(rt.sin)));
    ValueId qo = g.tensor(DType::F32, {1, 9, Hq, D}, "qo"), ko = g.tensor(DType::F32, {1, 9, Hkv, D}, "ko");
    g.op(hf ? "wgrt.rope_rows_hf.default" : "wgrt.rope_rows.default", {xq, xk, fc, fs, pos, qo, ko}, "rope");
    g.output(qo);
    g.output(ko);
    auto exe = ExecutableGraph::build(std::move(g), gpu());
    std::vector<float> q = randn(size_t(R * Hq * D), 1), k = randn(size_t(R * Hkv * D), 2);
    std::vector<int32_t> p = {0, 22, 5, 5, 1, 17, 3};
    exe->set_input(xq, {1, R, Hq, D}, std::span<const float>(q));
    exe->set_input(xk, {1, R, Hkv, D}, std::span<const float>(k));
    exe->set_input(pos, {R}, std::span<const int32_t>(p));
    exe->execute();
    std::vector<float> gq = exe->read_f32(qo), gk = exe->read_f32(ko), wq, wk;
    for (int64_t i = 0; i < R; ++i) {
      std::vector<float> qi(q.begin() + i * Hq * D, q.begin() + (i + 1) * Hq * D), ki(k.begin() + i * Hkv * D, k.begin() + (i + 1) * Hkv * D);
      std::vector<float> a = ref::rope(qi, 1, 1, Hq, D, p[size_t(i)], theta, hf), b = ref::rope(ki, 1, 1, Hkv, D, p[size_t(i)], theta, hf);
      wq.insert(wq.end(), a.begin(), a.end());
      wk.insert(wk.end(), b.begin(), b.end());
    }
    expect_attn_close(gq, wq, fmt::format("q hf={}", hf));
    expect_attn_close(gk, wk, fmt::format("k hf={}", hf));
    std::vector<int32_t> bad = {0, 23, 0, 0, 0, 0, 0};
    exe->set_input(pos, {R}, std::span<const int32_t>(bad));
    EXPECT_THROW(exe->execute(), LimitError);
  }
}
