// llama.sdpa_with_kv_cache: GPU vs the double-precision reference (reference/attention_ref.h) and PyTorch
// goldens, on ONE graph per configuration across prefill and decode steps (input_pos a live SymInt from
// et_vk.select_as_symint). Covers GQA groups 1/2/3/4/7/8, D 5/8/32/37/64/128/200/256, odd sizes, positions 0
// and 1, key-tile (64), row-block (4 and 16) and split-chunk boundaries, cache exactly full and overflow,
// non-causal, every route (flash wide/narrow, split-KV decode with its combine or sdpa_decode.wgsl's merge,
// legacy scores-in-scratch), a
// prefill chunk whose scores would need 256 MiB (no score buffer now), and a pinned-input_pos negative
// control. Tolerance: |gpu - ref| <= 1e-4 + 1e-3 |ref|.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "sdpa_test_util.h"
#include "support/paths.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;

TEST(Sdpa, GqaHeadDimsPrefillDecodeBothRoutes) {
  struct Case {
    int64_t B, Hq, Hkv, D;
  };
  // groups 1, 2, 4, 8; D 8, 32, 64, 128; odd head counts and C_max.
  for (Case c : {Case{2, 3, 3, 8}, Case{1, 6, 3, 64}, Case{1, 8, 2, 128}, Case{1, 8, 1, 32}, Case{1, 4, 4, 8}}) {
    Sdpa t(c.B, 7, c.Hq, c.Hkv, c.D, 23);
    int32_t pos = 0;
    for (int64_t S : {7, 1, 1, 5, 1}) {
      auto st = t.make_step(S, pos);
      std::string what = fmt::format("Hq={} Hkv={} D={} S={} pos={}", c.Hq, c.Hkv, c.D, S, pos);
      std::vector<float> got;
      {
        SplitThreshold never(std::numeric_limits<int64_t>::max());
        got = t.run(st);
        EXPECT_FALSE(t.split_active());
      }
      auto want = t.expected(st);
      ASSERT_EQ(t.exe->dims(t.out), (Dims{c.B, S, c.Hq, c.D}));
      expect_attn_close(got, want, what + " general");
      if (S == 1) {  // same step again through the split-KV route (the cache write is idempotent)
        SplitThreshold always(1);
        auto split = t.run(st);
        EXPECT_TRUE(t.split_active());
        expect_attn_close(split, want, what + " split");
      }
      pos += int32_t(S);
    }
  }
}

// Gemma's variant: soft-capped scores (cap 1.5 on scores of std ~3 after scale 1: the cap bites) and a sliding
// window, prefill then decode. The variant always runs the scores-in-scratch kernel (the flash kernels do not
// take its options), whatever the split-KV threshold says: both threshold settings are checked, and at context
// 600 with window 100 most keys are masked.
TEST(Sdpa, SoftcapAndSlidingWindowBothThresholds) {
  for (auto [softcap, window] : {std::pair{1.5, int64_t(0)}, {0.0, int64_t(4)}, {1.5, int64_t(5)}}) {
    Sdpa t(1, 7, 4, 2, 16, 23, true, false, 0, 1.0, softcap, window);
    int32_t pos = 0;
    for (int64_t S : {7, 1, 5, 1}) {
      auto st = t.make_step(S, pos);
      std::string what = fmt::format("softcap {} window {} S={} pos={}", softcap, window, S, pos);
      std::vector<float> got;
      {
        SplitThreshold never(std::numeric_limits<int64_t>::max());
        got = t.run(st);
      }
      auto want = t.expected(st);
      expect_attn_close(got, want, what + " general");
      if (S == 1) {
        SplitThreshold always(1);
        expect_attn_close(t.run(st), want, what + " split");
      }
      pos += int32_t(S);
    }
  }
  Sdpa t(1, 1, 2, 1, 32, 600, true, false, 600, std::nullopt, 0.0, 100);
  t.set_fill(599, 0);
  auto st = t.make_step(1, 599);
  SplitThreshold always(1);
  auto got = t.run(st);
  EXPECT_FALSE(t.split_active()) << "the _swa variant must stay on the scores-in-scratch kernel";
  expect_attn_close(got, t.expected(st), "window 100 at position 599, split threshold 1");
  SplitThreshold never(std::numeric_limits<int64_t>::max());
  expect_attn_close(t.run(st), t.expected(st), "window 100 at position 599, general");
}

TEST(Sdpa, Prefill1_7_128ThenDecodeOnOneGraph) {
  for (int64_t P : {1, 7, 128}) {
    Sdpa t(1, 128, 4, 2, 64, 141);
    auto st = t.make_step(P, 0);
    expect_attn_close(t.run(st), t.expected(st), fmt::format("prefill {}", P));
    for (int32_t i = 0; i < 4; ++i) {
      auto d = t.make_step(1, int32_t(P) + i);
      expect_attn_close(t.run(d), t.expected(d), fmt::format("prefill {} decode {}", P, i));
    }
  }
}

TEST(Sdpa, CacheExactlyFullThenOverflowKeepsGraphUsable) {
  Sdpa t(1, 6, 4, 2, 8, 13);
  auto a = t.make_step(6, 0);
  expect_attn_close(t.run(a), t.expected(a), "prefill");
  auto b = t.make_step(6, 6);
  expect_attn_close(t.run(b), t.expected(b), "second prefill");
  auto c = t.make_step(1, 12);  // pos + S == C_max
  expect_attn_close(t.run(c), t.expected(c), "exactly full");
  auto kc_before = t.exe->read_f32(t.kc);
  for (auto bad : {t.make_step(1, 13), t.make_step(2, 12), t.make_step(1, -1)}) {
    try {
      t.run(bad);
      FAIL() << "expected LimitError";
    } catch (const LimitError& e) {
      EXPECT_NE(std::string(e.what()).find("attn"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(t.exe->read_f32(t.kc), kc_before) << "a failed step must not write the cache";
  auto d = t.make_step(2, 4);  // rewinding (e.g. a new turn) still works
  expect_attn_close(t.run(d), t.expected(d), "after overflow");
}

TEST(Sdpa, NonCausalAndExplicitScale) {
  Sdpa t(1, 5, 4, 1, 32, 17, /*causal=*/false, false, 0, 0.3);
  int32_t pos = 0;
  for (int64_t S : {3, 5, 1}) {
    auto st = t.make_step(S, pos);
    expect_attn_close(t.run(st), t.expected(st), fmt::format("non-causal S={} pos={}", S, pos));
    pos += int32_t(S);
  }
  // The causal mask matters for S > 1: a causal graph on the same data must differ.
  Sdpa c(1, 5, 4, 1, 32, 17, /*causal=*/true, false, 0, 0.3);
  c.seed = t.seed = 100;
  auto s1 = t.make_step(5, 0);
  auto s2 = c.make_step(5, 0);
  EXPECT_GT(max_diff(t.run(s1), c.run(s2)), 1e-3);
}

TEST(Sdpa, SplitKvAtLongContextMatchesReferenceAndGeneralRoute) {
  // C_max 4096, context 3000: the cache is filled through update_cache nodes of the same graph, then decode.
  for (auto [Hq, Hkv, D] : {std::tuple<int64_t, int64_t, int64_t>{8, 2, 64}, {4, 1, 128}}) {
    Sdpa t(1, 1, Hq, Hkv, D, 4096, true, false, /*fill_max=*/2999);
    t.set_fill(2999, 0);
    int32_t pos = 2999;
    for (int i = 0; i < 3; ++i, ++pos) {
      auto st = t.make_step(1, pos);
      std::vector<float> split, general;
      {
        SplitThreshold def(512);
        split = t.run(st);
        EXPECT_TRUE(t.split_active());
        if (i == 0) t.set_fill(0, 0);  // the fill ran once; later steps write only their own row
      }
      {
        SplitThreshold never(std::numeric_limits<int64_t>::max());
        general = t.run(st);
        EXPECT_FALSE(t.split_active());
      }
      auto want = t.expected(st);
      std::string what = fmt::format("Hq={} D={} pos={}", Hq, D, pos);
      expect_attn_close(split, want, what + " split");
      expect_attn_close(general, want, what + " general");
      EXPECT_LT(max_diff(split, general), 1e-4) << what;
    }
  }
}

TEST(Sdpa, PinnedInputPosDivergesFromLiveOne) {
  Sdpa live(1, 4, 4, 2, 8, 16), pinned(1, 4, 4, 2, 8, 16, true, /*pinned_pos=*/true);
  pinned.seed = live.seed;
  auto a = live.make_step(4, 0);
  auto a2 = pinned.make_step(4, 0);
  EXPECT_EQ(live.run(a), pinned.run(a2));  // same data, same position: identical
  live.expected(a);
  for (int32_t p = 4; p < 7; ++p) {
    auto s = live.make_step(1, p);
    auto s2 = pinned.make_step(1, p);
    auto l = live.run(s), q = pinned.run(s2);
    expect_attn_close(l, live.expected(s), "live");
    EXPECT_GT(max_diff(l, q), 1e-3) << "a pinned input_pos must diverge on decode step " << p;
  }
}

TEST(Sdpa, RejectsBadArguments) {
  auto build = [](int64_t hq, int64_t hkv, bool mask, double dropout) {
    Graph g;
    ValueId q = g.input("q", DType::F32, {1, 2, hq, 8}), k = g.input("k", DType::F32, {1, 2, hkv, 8}),
            v = g.input("v", DType::F32, {1, 2, hkv, 8});
    ValueId kc = g.state("kc", DType::F32, {1, 8, hkv, 8}), vc = g.state("vc", DType::F32, {1, 8, hkv, 8});
    g.op("llama.sdpa_with_kv_cache.default",
         {q, k, v, kc, vc, g.int_value(0), g.none(), mask ? q : g.none(), g.real(dropout), g.boolean(true), g.none(),
          g.tensor_like(DType::F32)},
         "bad_attn");
    return ExecutableGraph::build(std::move(g), gpu());
  };
  EXPECT_THROW(build(3, 2, false, 0.0), InvalidArgument);  // Hq not a multiple of Hkv
  EXPECT_THROW(build(4, 2, true, 0.0), Unsupported);       // explicit mask
  EXPECT_THROW(build(4, 2, false, 0.1), InvalidArgument);  // dropout
  EXPECT_NO_THROW(build(4, 2, false, 0.0));
}

TEST(Sdpa, MatchesPyTorchGoldens) {
  std::ifstream f(test::source_path("tests/golden/ops_b/sdpa.json"));
  ASSERT_TRUE(f) << "missing golden; run tests/golden/make_goldens_ops_b.py";
  auto j = nlohmann::json::parse(f);
  int64_t B = j["B"], Hq = j["Hq"], Hkv = j["Hkv"], D = j["D"], C = j["c_max"];
  Sdpa t(B, 5, Hq, Hkv, D, C, j["causal"].get<bool>());
  ASSERT_GE(j["steps"].size(), 4u);
  for (const auto& s : j["steps"]) {
    Sdpa::Step st{s["q"].get<std::vector<float>>(), s["k"].get<std::vector<float>>(), s["v"].get<std::vector<float>>(),
                  s["S"].get<int64_t>(), s["pos"].get<int32_t>()};
    expect_attn_close(t.run(st), s["out"].get<std::vector<float>>(), fmt::format("golden pos={}", st.pos));
  }
}

// Flash attention at odd sizes: head dims 5, 37 (not a multiple of 4), 64, 128, 200 and 256 (> 128: narrow
// blocks only), GQA groups 1, 3, 7; a prefill at position 1 over 70 tokens crosses the 64-key tile and the
// 16-row blocks (70 * G rows), then decode up to the last cache row, each decode step also split into chunks
// of 1 and of 64 keys, and a last prefill that fills the cache exactly.
TEST(Sdpa, FlashOddHeadDimsTilesBlocksAndContextEnd) {
  struct Case {
    int64_t Hq, Hkv, D;
  };
  for (Case c : {Case{6, 2, 5}, Case{7, 1, 37}, Case{4, 4, 64}, Case{12, 4, 128}, Case{2, 2, 200}, Case{3, 1, 256}}) {
    const int64_t C = 150;
    Sdpa t(1, 70, c.Hq, c.Hkv, c.D, C);
    std::vector<std::pair<int64_t, int32_t>> steps = {{1, 0}, {70, 1}, {1, 71}, {1, 72}, {66, 73}, {1, 139}, {1, 149}};
    for (auto [S, pos] : steps) {
      auto st = t.make_step(S, pos);
      const std::string what = fmt::format("Hq={} Hkv={} D={} S={} pos={}", c.Hq, c.Hkv, c.D, S, pos);
      std::vector<float> got;
      {
        SplitThreshold never(std::numeric_limits<int64_t>::max());
        got = t.run(st);
        EXPECT_FALSE(t.split_active()) << what;
      }
      auto want = t.expected(st);
      expect_attn_close(got, want, what + " flash");
      if (S == 1 && pos > 0) {
        for (int64_t chunk : {1, 64}) {
          SplitThreshold always(1, chunk);
          expect_attn_close(t.run(st), want, what + fmt::format(" split chunk {}", chunk));
          EXPECT_TRUE(t.split_active()) << what;
        }
      }
    }
    auto last = t.make_step(1, int32_t(C - 1));  // rewrite the last row, then a full-length prefill
    t.run(last), t.expected(last);
    auto full = t.make_step(70, int32_t(C - 70));
    expect_attn_close(t.run(full), t.expected(full), fmt::format("D={} prefill up to the context end", c.D));
  }
}

// Decode split at the chunk boundaries of 64-key chunks (contexts 63, 64, 65, 128, 129) and with the 64-split
// cap reached (context 1000 in chunks of >= 1 key).
TEST(Sdpa, SplitKvChunkBoundaries) {
  Sdpa t(2, 1, 8, 2, 64, 1001, true, false, /*fill_max=*/999);
  t.set_fill(999, 0);
  bool filled = true;
  for (int32_t pos : {62, 63, 64, 127, 128, 999}) {
    auto st = t.make_step(1, pos);
    std::vector<float> got;
    {
      const int64_t chunk = pos == 999 ? 1 : 64;
      SplitThreshold always(1, chunk);
      got = t.run(st);
      EXPECT_EQ(t.split_active(), pos + 1 > chunk) << "context " << pos + 1;  // one chunk: no combine
    }
    if (filled) t.set_fill(0, 0), filled = false;
    expect_attn_close(got, t.expected(st), fmt::format("split decode at context {}", pos + 1));
  }
}

// The legacy route (scores in scratch, tuning sdpa_legacy) computes the same function.
TEST(Sdpa, LegacyRouteMatchesReference) {
  Legacy legacy;
  Sdpa t(1, 9, 6, 2, 32, 40);
  int32_t pos = 0;
  for (int64_t S : {9, 1, 4, 1}) {
    auto st = t.make_step(S, pos);
    auto got = t.run(st);
    EXPECT_TRUE(t.active("ops/attention/sdpa.wgsl:main"));
    EXPECT_FALSE(t.active("sdpa_flash.wgsl:main"));
    expect_attn_close(got, t.expected(st), fmt::format("legacy S={} pos={}", S, pos));
    pos += int32_t(S);
  }
}

// Llama-3.2-1B's attention shape with the default prefill chunk: 512 tokens x 32 query heads over a 4096-row
// cache. Scores in scratch would need 256 MiB, over lavapipe's 128 MiB binding limit (the graph failed to
// build before flash attention); the flash route needs none. A 17-token prefill ending at the last cache row.
TEST(Sdpa, LongPrefillChunkNeedsNoScoreBuffer) {
  const int64_t C = 4096, S = 17;
  Sdpa t(1, 512, 32, 8, 64, C, true, false, /*fill_max=*/C - S);
  ASSERT_GT(uint64_t(512) * 32 * C * 4, gpu().limits().maxStorageBufferBindingSize);
  t.set_fill(C - S, 0);
  auto st = t.make_step(S, int32_t(C - S));
  expect_attn_close(t.run(st), t.expected(st), "17 tokens at the context end");
}
