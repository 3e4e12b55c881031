// llama.sdpa_with_kv_cache's decode kernel (sdpa_decode.wgsl: the G query heads of a kv head per workgroup,
// split-KV planned from the live key count, merge only when split) against the double-precision reference
// (reference/attention_ref.h) on ONE graph per configuration. Covers contexts 1, 63, 64, 65, 129, 257, 1000
// and the last cache row (C_max - 1), GQA groups 1, 4, 7, 8 and 18 (three head blocks, the last partial), head
// dims 64, 80, 128, 256, B = 2, every split setting (never, default rule, chunks of 1 / 64 / 300 keys), the
// old flash route on the same steps, live-dim changes (growing decode, a long split step then a short one, a
// prefill after decodes: stale partials of a longer step must not leak), route choice (D % 4, S > 1) and the
// WGRT_SDPA_DECODE / WGRT_SDPA_SPLIT knobs; f16 caches on every route. Tolerance: |gpu - ref| <= 1e-4 + 1e-3 |ref|
// (attention_test_util.h; f16 caches: against the reference over the rounded caches).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <limits>
#include <memory>
#include <vector>

#include "ops/attention/key_split.h"
#include "sdpa_test_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

webgpu::Tuning with_decode_kernel(bool on) {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_decode_kernel = on;
  return t;
}

// Runs decode step `st` under each split setting (and the old flash route) and checks each against `want`.
void check_all_routes(Sdpa& t, const Sdpa::Step& st, const std::vector<float>& want, const std::string& what) {
  const int64_t ctx = st.pos + 1;
  {
    webgpu::ScopedTuning def(gpu(), with_decode_kernel(true));
    expect_attn_close(t.run(st), want, what + " default split rule");
    EXPECT_TRUE(t.decode_active()) << what;
  }
  {
    SplitThreshold never(std::numeric_limits<int64_t>::max());
    expect_attn_close(t.run(st), want, what + " unsplit");
    EXPECT_TRUE(t.decode_active()) << what;
    EXPECT_FALSE(t.decode_merge_active()) << what;
  }
  for (int64_t chunk : {1, 64, 300}) {
    SplitThreshold always(1, chunk);
    expect_attn_close(t.run(st), want, what + fmt::format(" split chunk {}", chunk));
    EXPECT_EQ(t.decode_merge_active(), ctx > chunk) << what << " chunk " << chunk;  // one chunk: no merge
  }
  {
    webgpu::ScopedTuning old(gpu(), with_decode_kernel(false));
    expect_attn_close(t.run(st), want, what + " sdpa_flash route");
    EXPECT_FALSE(t.decode_active()) << what;
  }
}

}  // namespace

TEST(SdpaDecode, ContextsGroupsHeadDimsAndSplits) {
  struct Case {
    int64_t B, Hq, Hkv, D;
  };
  const int64_t C = 1001;
  // combine_splits' two forms: the loop over the splits (COMBINE_LOOP 64, the CPU-adapter policy) and the
  // workgroup merge from 2 splits on (COMBINE_LOOP 1, fixed when the graph is built), the latter on fewer steps.
  const std::vector<int32_t> all_pos = {0, 62, 63, 64, 128, 256, 999, int32_t(C - 1)}, merge_pos = {64, 256, 999};
  for (Case c : {Case{1, 4, 4, 64}, Case{2, 8, 2, 80}, Case{1, 7, 1, 128}, Case{1, 16, 2, 256}, Case{1, 18, 1, 64}}) {
    for (int64_t loop : {64, 1}) {
      std::unique_ptr<Sdpa> tp;
      {
        webgpu::Tuning tl = gpu().tuning();
        tl.sdpa_combine_loop_splits = loop;
        webgpu::ScopedTuning built(gpu(), tl);
        tp = std::make_unique<Sdpa>(c.B, 1, c.Hq, c.Hkv, c.D, C, true, false, /*fill_max=*/C);
      }
      Sdpa& t = *tp;
      t.set_fill(C, 0);
      bool filled = true;
      for (int32_t pos : loop == 1 ? merge_pos : all_pos) {
        auto st = t.make_step(1, pos);
        const std::string what =
            fmt::format("B={} Hq={} Hkv={} D={} context {} combine loop {}", c.B, c.Hq, c.Hkv, c.D, pos + 1, loop);
        std::vector<float> first;
        {
          webgpu::ScopedTuning def(gpu(), with_decode_kernel(true));
          first = t.run(st);  // runs the fill once
        }
        if (filled) t.set_fill(0, 0), filled = false;
        auto want = t.expected(st);
        expect_attn_close(first, want, what + " first run");
        check_all_routes(t, st, want, what);
      }
    }
  }
}

// One graph through live-dim changes: a prefill, decode steps with growing position (split into single keys,
// so the split count changes every step), a long step at context 900 (64 splits), a short step after it
// (fewer splits: the longer step's partials must not leak into the merge), a prefill after decodes, decode again.
TEST(SdpaDecode, LiveDimChangesOnOneGraph) {
  Sdpa t(1, 16, 8, 2, 64, 1024, true, false, /*fill_max=*/900);
  SplitThreshold always(1, 1);
  auto pre = t.make_step(16, 0);
  t.set_fill(0, 0);
  expect_attn_close(t.run(pre), t.expected(pre), "prefill 16");
  for (int32_t pos = 16; pos < 21; ++pos) {
    auto st = t.make_step(1, pos);
    expect_attn_close(t.run(st), t.expected(st), fmt::format("decode at {}", pos));
    EXPECT_TRUE(t.decode_merge_active());
  }
  t.set_fill(879, 21);  // rows 21..899, then a step at 900
  auto lng = t.make_step(1, 900);
  expect_attn_close(t.run(lng), t.expected(lng), "decode at 900");
  t.set_fill(0, 0);
  auto shrt = t.make_step(1, 21);  // rewinds: context 22 of the same cache
  expect_attn_close(t.run(shrt), t.expected(shrt), "decode at 21 after 900");
  auto pre2 = t.make_step(5, 22);
  expect_attn_close(t.run(pre2), t.expected(pre2), "prefill 5 at 22 after decodes");
  EXPECT_FALSE(t.decode_active());
  auto last = t.make_step(1, 27);
  expect_attn_close(t.run(last), t.expected(last), "decode at 27 after the prefill");
  EXPECT_TRUE(t.decode_active());
}

// f16 KV caches (kv_f16.wgsl): every route of llama.sdpa_with_kv_cache reads them (decode with and without splits,
// the sdpa_flash route, the register-blocked prefill, the scores-in-scratch legacy and _swa kernels), and both
// cache writers (the fill's llama.update_cache, the op's own update_kv_cache) store the values rounded to f16:
// the caches read back within one f16 step of the mirror rounded to nearest even, and each output matches
// the double-precision reference over those rounded caches at the f32 tolerance.
TEST(SdpaDecode, F16CachesOnEveryRoute) {
  struct Case {
    int64_t B, Hq, Hkv, D;
  };
  const int64_t C = 1001;
  for (Case c : {Case{1, 4, 4, 64}, Case{2, 8, 2, 80}, Case{1, 7, 1, 128}, Case{1, 16, 2, 256}}) {
    Sdpa t(c.B, 16, c.Hq, c.Hkv, c.D, C, true, false, /*fill_max=*/C, std::nullopt, 0, 0, DType::F16);
    t.set_fill(C, 0);
    bool filled = true;
    const std::string base = fmt::format("f16 B={} Hq={} Hkv={} D={}", c.B, c.Hq, c.Hkv, c.D);
    for (int32_t pos : {0, 63, 256, 999, int32_t(C - 1)}) {
      auto st = t.make_step(1, pos);
      std::vector<float> first;
      {
        webgpu::ScopedTuning def(gpu(), with_decode_kernel(true));
        first = t.run(st);
      }
      if (filled) t.set_fill(0, 0), filled = false;
      auto want = t.expected(st);
      const std::string what = fmt::format("{} context {}", base, pos + 1);
      expect_attn_close(first, want, what + " first run");
      expect_f16_cache(t.exe->read_f32(t.kc), t.kc_ref, what + " k cache");
      expect_f16_cache(t.exe->read_f32(t.vc), t.vc_ref, what + " v cache");
      check_all_routes(t, st, want, what);
    }
    auto pre = t.make_step(16, 100);  // the prefill route (D <= 128) or sdpa_flash's wide route
    expect_attn_close(t.run(pre), t.expected(pre), base + " prefill 16 at 100");
  }
  {  // the legacy kernel and the _swa variant (scores in scratch; scalar cache reads)
    std::unique_ptr<Sdpa> legacy;
    {
      Legacy on;
      legacy = std::make_unique<Sdpa>(1, 4, 8, 2, 64, 300, true, false, 0, std::nullopt, 0, 0, DType::F16);
    }
    auto a = legacy->make_step(4, 0), b = legacy->make_step(1, 4);
    Legacy on;
    expect_attn_close(legacy->run(a), legacy->expected(a), "f16 legacy prefill");
    expect_attn_close(legacy->run(b), legacy->expected(b), "f16 legacy decode");
    EXPECT_TRUE(legacy->active("ops/attention/sdpa.wgsl:main"));
    Sdpa swa(1, 2, 4, 2, 16, 40, true, false, 0, std::nullopt, 1.5, 3, DType::F16);
    auto w0 = swa.make_step(2, 0), w1 = swa.make_step(1, 2);
    expect_attn_close(swa.run(w0), swa.expected(w0), "f16 swa prefill");
    expect_attn_close(swa.run(w1), swa.expected(w1), "f16 swa decode");
  }
  // Out of the f16 range: stored as +-65504 (one key: out = its v row).
  Sdpa big(1, 1, 4, 4, 8, 8, true, false, 0, std::nullopt, 0, 0, DType::F16);
  auto st = big.make_step(1, 0);
  for (size_t i = 0; i < st.v.size(); ++i) st.v[i] = i % 2 ? 1e6f : -7e4f;
  const std::vector<float> out = big.run(st);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], i % 2 ? 65504.0f : -65504.0f) << i;
  // An f16 cache needs D % 4 == 0; the error names the fix.
  try {
    Sdpa bad(1, 1, 4, 2, 6, 8, true, false, 0, std::nullopt, 0, 0, DType::F16);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4"), std::string::npos) << e.what();
  }
}

// The route rule: decode with D % 4 == 0 takes the decode kernel; D = 37 and prefill keep sdpa_flash.wgsl;
// WGRT_SDPA_DECODE=0 turns it off; the _swa variant stays on the scores-in-scratch kernel.
TEST(SdpaDecode, RouteChoice) {
  Sdpa d37(1, 3, 4, 2, 37, 40);
  auto p = d37.make_step(3, 0);
  expect_attn_close(d37.run(p), d37.expected(p), "D=37 prefill");
  auto s = d37.make_step(1, 3);
  expect_attn_close(d37.run(s), d37.expected(s), "D=37 decode");
  EXPECT_FALSE(d37.decode_active());
  Sdpa swa(1, 1, 4, 2, 16, 40, true, false, 0, std::nullopt, 1.5, 3);
  auto w = swa.make_step(1, 0);
  expect_attn_close(swa.run(w), swa.expected(w), "swa decode");
  EXPECT_FALSE(swa.decode_active());
  EXPECT_TRUE(swa.active("ops/attention/sdpa.wgsl:main"));
}

TEST(SdpaDecode, TuningKnobs) {
  auto parse = [](const char* name, const char* value) {
    return webgpu::parse_tuning_env([&](const char* n) { return std::string(n) == name ? value : nullptr; });
  };
  webgpu::Tuning t = webgpu::Tuning::for_device(webgpu::DeviceFacts{}, parse("WGRT_SDPA_SPLIT", "512,32,1024"));
  EXPECT_EQ(t.sdpa_split_min_context, 512);
  EXPECT_EQ(t.sdpa_split_min_chunk, 32);
  EXPECT_EQ(t.sdpa_split_target_workgroups, 1024);
  EXPECT_TRUE(t.sdpa_decode_kernel);
  // The policy's own rule: GPUs split from 128 keys (chunks of multiples of 64, <= ~512 workgroups), CPU adapters
  // from 256.
  webgpu::DeviceFacts gpu, cpu;
  cpu.cpu_adapter = true;
  const webgpu::Tuning tg = webgpu::Tuning::for_device(gpu, {}), tc = webgpu::Tuning::for_device(cpu, {});
  EXPECT_EQ(std::vector<int64_t>({tg.sdpa_split_min_context, tg.sdpa_split_min_chunk, tg.sdpa_split_target_workgroups}),
            std::vector<int64_t>({128, 64, 512}));
  EXPECT_EQ(std::vector<int64_t>({tc.sdpa_split_min_context, tc.sdpa_split_min_chunk, tc.sdpa_split_target_workgroups}),
            std::vector<int64_t>({256, 128, 512}));
  EXPECT_EQ(tg.sdpa_combine_loop_splits, 4);   // the workgroup merge from 5 splits on GPUs
  EXPECT_EQ(tc.sdpa_combine_loop_splits, 64);  // the loop over every split on CPU adapters
  EXPECT_FALSE(webgpu::Tuning::for_device({}, parse("WGRT_SDPA_DECODE", "0")).sdpa_decode_kernel);
  for (const char* bad : {"1,2", "1,0,4", "1,2,0", "a,b,c", "1,2,3,4"})
    EXPECT_THROW(parse("WGRT_SDPA_SPLIT", bad), InvalidArgument) << bad;
  EXPECT_THROW(parse("WGRT_SDPA_DECODE", "2"), InvalidArgument);
}

// The split rule (key_split.h) against its contract, worked by hand for the rule 128,64,256 over 8 workgroups (a
// 1B's kv heads; n = 256 / 8 = 32 chunks at most): chunks are whole multiples of the minimum chunk, the splits
// cover ctx exactly once (the last one partial), and never exceed the target's count or max_splits.
TEST(SdpaDecode, KeySplitChunksAreWholeMultiplesOfTheMinimum) {
  webgpu::Tuning t;
  t.sdpa_split_min_context = 128;
  t.sdpa_split_min_chunk = 64;
  t.sdpa_split_target_workgroups = 256;
  struct Case { int64_t ctx, max_splits, nsplit, chunk; };
  for (const Case c : {Case{127, 64, 1, 127},   // below the minimum context: one split of every key
                       Case{128, 64, 2, 64},    // 2 chunks of 64
                       Case{200, 64, 4, 64},    // ceil(200 / 4) = 50 -> 64: 64, 64, 64, 8
                       Case{2048, 64, 32, 64},  // ceil(2048 / 32) = 64
                       Case{2100, 64, 17, 128}, // ceil(2100 / 32) = 66 -> 128 (not 32 chunks of 66 keys)
                       Case{4096, 64, 32, 128},
                       Case{4097, 64, 22, 192}, // 129 -> 192
                       Case{2100, 8, 7, 320},   // max_splits 8: ceil(2100 / 8) = 263 -> 320
                       Case{2100, 1, 1, 2100}}) {
    const ops::KeySplit k = ops::decode_key_split(t, 8, c.ctx, c.max_splits);
    EXPECT_EQ(k.nsplit, c.nsplit) << "ctx " << c.ctx << " max " << c.max_splits;
    EXPECT_EQ(k.chunk, c.chunk) << "ctx " << c.ctx << " max " << c.max_splits;
  }
  for (int64_t ctx = 1; ctx <= 5000; ++ctx) {
    const ops::KeySplit k = ops::decode_key_split(t, 8, ctx, ops::kMaxKeySplits);
    ASSERT_GE(k.nsplit, 1);
    ASSERT_LE(k.nsplit, 32) << ctx;
    ASSERT_LT((k.nsplit - 1) * k.chunk, ctx) << ctx;  // every split sees a key
    ASSERT_GE(k.nsplit * k.chunk, ctx) << ctx;        // every key is in a split
    if (k.nsplit > 1) ASSERT_EQ(k.chunk % 64, 0) << ctx;
  }
}
