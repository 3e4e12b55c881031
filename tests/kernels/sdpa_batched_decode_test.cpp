// wgrt.sdpa_batched's decode route (sdpa_batched_decode.wgsl: each row a decode query of its own slot, the
// query heads of a kv head sharing K/V loads, keys split from the step's longest row, a row combining only its
// live splits) against the double-precision reference (reference/attention_ref.h, row by row over the row's
// own slot) and against the scores route (sdpa_batched.wgsl) on the same inputs. Odd sizes: rows 1..9 with
// slots in any order, 5 slots of C_max 37, GQA groups 1/4/7/8, D 64/80/128 (and 4); rows of length 1, rows
// ending on a split boundary (chunk 8: lengths 8, 9, 16, 17) and the last cache position of the last slot;
// prefill chunks of one slot mixed with decode rows of others. Splits forced small (sdpa_split_* 1, 8, 4096)
// and the policy's own (no split at this context). Tolerance |gpu - ref| <= 1e-4 + 1e-3 |ref| for both routes
// and between them.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "sdpa_batched_util.h"

using namespace wgrt;
using wgrt::test::Batched;
using wgrt::test::expect_attn_close;
using wgrt::test::gpu;
using Row = wgrt::test::BatchedRow;

namespace {

constexpr int64_t kSlots = 5, kCtx = 37, kRows = 9;

// The device's policy with the serving-batch route and (split) the decode key split forced to chunks of 8.
// combine_loop: the graph's combine loops over up to this many splits, else merges in workgroup memory.
webgpu::Tuning policy(bool decode, bool split, int64_t combine_loop = 64) {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_batched_decode_rows = decode ? kRows : 0;
  t.sdpa_combine_loop_splits = combine_loop;
  if (split) {
    t.sdpa_split_min_context = 1;
    t.sdpa_split_min_chunk = 8;
    t.sdpa_split_target_workgroups = 4096;
  }
  return t;
}

// Whether exe has an active dispatch of `kernel` ("file.wgsl:entry") with workgroups for its last execute (its
// dump's dispatch lines: "... KERNEL grid XxYxZ[ route R][ (inactive)]").
bool active(ExecutableGraph& exe, const std::string& kernel) {
  const std::string dump = exe.dump();
  for (size_t at = dump.find(kernel); at != std::string::npos; at = dump.find(kernel, at + 1)) {
    const std::string line = dump.substr(at, dump.find('\n', at) - at);
    if (line.find("inactive") == std::string::npos && line.find(" grid 0x") == std::string::npos) return true;
  }
  return false;
}

// Steps over 5 slots, each slot's rows consecutive from its current length (so every key a row sees was
// written). `len` follows the slots; a step is a list of (slot, rows) advances, a negative count restarts the
// slot with -count rows.
struct Schedule {
  int len[kSlots] = {};
  std::vector<Row> step(std::initializer_list<std::pair<int, int>> adv) {
    std::vector<Row> rows;
    for (auto [s, n] : adv) {
      if (n < 0) len[s] = 0, n = -n;
      for (int i = 0; i < n; ++i) rows.push_back({s, len[s]++});
    }
    return rows;
  }
};

std::vector<std::vector<Row>> steps() {
  Schedule s;
  return {
      s.step({{3, 9}}),                  // one prefill chunk of 9 rows
      s.step({{3, 1}, {0, 8}}),          // a decode beside a prefill of 8 (slot 0 ends at length 8: one chunk)
      s.step({{0, 1}, {4, 7}, {3, 1}}),  // length 9 (a second split of one key), slot 4 prefills, slot 3 decodes
      s.step({{4, 1}}),                  // one row, length 8
      s.step({{2, 1}, {4, 1}, {0, 1}}),  // length 1 beside 9 and 10, slots out of order
      s.step({{1, 5}, {3, 1}, {2, 1}, {0, 1}}),
      s.step({{4, 9}}), s.step({{4, 9}}), s.step({{4, 9}}),  // slot 4 to length 36
      s.step({{4, 1}, {2, -1}, {1, 1}, {0, 1}, {3, 1}}),  // slot 4's last position (C_max - 1) beside a restart (length 1)
      s.step({{3, 1}, {1, 1}, {0, 1}, {2, 1}}),
      s.step({{3, 2}, {1, 1}, {2, 1}, {0, 1}, {2, 1}}),  // slot 3 at lengths 15, 16; slot 2 twice in one step
      s.step({{3, 1}, {0, 1}, {1, 1}}),                  // slot 3 at 17
      s.step({{4, -6}, {2, 1}}),                         // slot 4 restarts: 7 rows
      s.step({{1, 1}, {4, 7}}),                          // 8 rows
      s.step({{0, 1}, {3, 1}}),                          // 2 rows
  };
}

}  // namespace

TEST(SdpaBatchedDecode, MatchesTheReferenceAndTheScoresRoute) {
  struct Case {
    int64_t Hq, Hkv, D;
  };
  // GQA 1, 4, 7, 8 (7 and 8 heads in one workgroup); D 64, 80, 128, 4.
  for (Case c : {Case{3, 3, 64}, Case{8, 2, 80}, Case{7, 1, 128}, Case{16, 2, 64}, Case{8, 1, 4}}) {
    // Split steps with both forms of the combine (the loop; the workgroup merge from 2 live splits on).
    for (auto [split, loop] : {std::pair{true, 64}, std::pair{true, 1}, std::pair{false, 64}}) {
      Batched dec(kRows, kSlots, c.Hq, c.Hkv, c.D, kCtx, 0, 0, policy(true, split, loop));
      Batched ref(kRows, kSlots, c.Hq, c.Hkv, c.D, kCtx, 0, 0, policy(false, split));
      const auto all = steps();
      for (size_t i = 0; i < all.size(); ++i) {
        const std::string what =
            fmt::format("Hq={} Hkv={} D={} split={} combine loop {} step {}", c.Hq, c.Hkv, c.D, split, loop, i);
        auto [got, want] = dec.run(all[i]);
        auto [scores, want2] = ref.run(all[i]);
        expect_attn_close(got, want, what + " decode route vs reference");
        expect_attn_close(scores, want2, what + " scores route vs reference");
        expect_attn_close(got, scores, what + " decode vs scores route");
        ASSERT_TRUE(active(*dec.exe, "sdpa_batched_decode.wgsl:main")) << what;
        ASSERT_FALSE(active(*ref.exe, "sdpa_batched_decode.wgsl:main")) << what;
        int longest = 0;
        for (const Row& r : all[i]) longest = std::max(longest, r.pos + 1);
        // The combine runs exactly where the step splits (chunks of 8 from the longest row).
        ASSERT_EQ(active(*dec.exe, "sdpa_batched_decode.wgsl:combine"), split && longest > 8) << what;
      }
    }
  }
}

// f16 caches (kv_f16.wgsl) on both routes and the cache write: against the reference over the values rounded to
// f16, and the caches read back within one f16 step of that rounded mirror.
TEST(SdpaBatchedDecode, F16Caches) {
  for (auto [Hq, Hkv, D] : {std::tuple<int64_t, int64_t, int64_t>{8, 2, 64}, {7, 1, 128}, {8, 1, 4}}) {
    Batched dec(kRows, kSlots, Hq, Hkv, D, kCtx, 0, 0, policy(true, true, 1), DType::F16);
    Batched ref(kRows, kSlots, Hq, Hkv, D, kCtx, 0, 0, policy(false, true), DType::F16);
    const auto all = steps();
    for (size_t i = 0; i < all.size(); ++i) {
      const std::string what = fmt::format("f16 Hq={} Hkv={} D={} step {}", Hq, Hkv, D, i);
      auto [got, want] = dec.run(all[i]);
      auto [scores, want2] = ref.run(all[i]);
      expect_attn_close(got, want, what + " decode route vs reference");
      expect_attn_close(scores, want2, what + " scores route vs reference");
      ASSERT_TRUE(active(*dec.exe, "sdpa_batched_decode.wgsl:main")) << what;
    }
    wgrt::test::expect_f16_cache(dec.exe->read_f32(dec.kc), dec.kc_ref, "f16 k cache, decode route");
    wgrt::test::expect_f16_cache(ref.exe->read_f32(ref.vc), ref.vc_ref, "f16 v cache, scores route");
  }
  Batched swa(kRows, 2, 4, 2, 8, 11, 0.0, 4, std::nullopt, DType::F16);
  auto [g, w] = swa.run(wgrt::test::prefill(1, 0, 6));
  expect_attn_close(g, w, "f16 window 4");
}

// The route rule: calls of more rows than the policy's take the scores route; so do the _swa variant and
// D % 4 != 0, whatever the policy says.
TEST(SdpaBatchedDecode, TheRuleRoutesByRowsOptionsAndHeadDim) {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_batched_decode_rows = 3;
  Batched a(kRows, 2, 4, 2, 8, 11, 0, 0, t);
  auto [g1, w1] = a.run(wgrt::test::prefill(0, 0, 3));
  expect_attn_close(g1, w1, "3 rows");
  EXPECT_TRUE(active(*a.exe, "sdpa_batched_decode.wgsl:main"));
  auto [g2, w2] = a.run(wgrt::test::prefill(0, 3, 4));
  expect_attn_close(g2, w2, "4 rows");
  EXPECT_FALSE(active(*a.exe, "sdpa_batched_decode.wgsl:main"));
  t.sdpa_batched_decode_rows = kRows;
  Batched odd(kRows, 2, 4, 2, 6, 11, 0, 0, t), swa(kRows, 2, 4, 2, 8, 11, 0.0, 4, t);
  auto [g3, w3] = odd.run(wgrt::test::prefill(1, 0, 2));
  auto [g4, w4] = swa.run(wgrt::test::prefill(1, 0, 6));
  expect_attn_close(g3, w3, "D 6");
  expect_attn_close(g4, w4, "window 4");
  EXPECT_FALSE(active(*odd.exe, "sdpa_batched_decode.wgsl:main"));
  EXPECT_FALSE(active(*swa.exe, "sdpa_batched_decode.wgsl:main"));
}
