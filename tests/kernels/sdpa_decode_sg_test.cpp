// llama.sdpa_with_kv_cache's subgroup decode kernel (sdpa_decode_sg.wgsl: key groups of `lanes` subgroup lanes,
// each lane a slice of the head dim, the dot products summed by shuffles; tuning sdpa_decode_lanes, at graph build
// and at execute) against the double-precision reference (reference/attention_ref.h). Covers lanes 1, 2, 4 and 8
// on GQA groups 1, 2, 3, 4, 7 and 12 (two head blocks of 8 and 4), head dims 16, 32, 64 and 80 (lanes capped where
// they must divide D/4; 5 vec4 per lane), B = 2, f32 caches on every shape and f16 caches on four, contexts 1, 63,
// 64, 65, 129, 257, 1000 and the last cache row under every split setting (default rule, never, chunks of 1 / 64 /
// 300 keys), live-dim changes on one graph (a long split step then a short one: stale partials must not leak), the
// fallback to sdpa_decode.wgsl (a shape the rule rejects, lanes 0 at build or at execute) and the
// WGRT_SDPA_DECODE_LANES knob. Which kernel ran is read from the graph's dump; the test's restatement of sdpa.cpp's
// shape rule (sg_lanes below) says where the subgroup kernel must be built. Tolerance: |gpu - ref| <= 1e-4 +
// 1e-3 |ref| (attention_test_util.h; f16 caches: against the reference over the rounded caches).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sdpa_test_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

// The device's policy with the decode kernel on and `lanes` lanes per key on sdpa_decode_sg.wgsl (0: off).
webgpu::Tuning with_lanes(uint32_t lanes) {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_decode_kernel = true;
  t.sdpa_decode_lanes = lanes;
  return t;
}

// sdpa.cpp's shape rule (decode_sg_shape) restated: the lanes per key sdpa_decode_sg.wgsl runs with when `lanes`
// are asked for Hq query heads over Hkv kv heads of dim D on this adapter; 0 where it does not apply. Lanes: at most
// the smallest subgroup, halved until they divide D/4 (VPL = D/4 / lanes vec4 per lane); a block of HB = min(G, 8)
// heads needs HB * VPL <= 16, (128 / smallest subgroup) * HB * D/4 <= 1024, and one key per lane per step
// ((f16 ? 16 : 8) / VPL >= 1).
int64_t sg_lanes(int64_t lanes, int64_t Hq, int64_t Hkv, int64_t D, DType kv) {
  const webgpu::DeviceFacts& f = gpu().facts();
  if (lanes == 0 || !f.subgroups || f.subgroup_min == 0 || f.subgroup_min > 128 || D % 4 != 0) return 0;
  const int64_t hb = std::min<int64_t>(Hq / Hkv, 8), d4 = D / 4, subgroups = 128 / int64_t(f.subgroup_min);
  int64_t l = std::min<int64_t>(lanes, f.subgroup_min);
  while (l > 1 && d4 % l != 0) l /= 2;
  const int64_t vpl = d4 / l;
  if (hb * vpl > 16 || subgroups * hb * d4 > 1024 || subgroups * hb > 256) return 0;
  return (kv == DType::F16 ? 16 : 8) / vpl >= 1 ? l : 0;
}

// Which decode kernel ran in t's last execute: sdpa_decode_sg.wgsl's main (sg) or sdpa_decode.wgsl's, never both.
void expect_route(const Sdpa& t, bool sg, const std::string& what) {
  EXPECT_EQ(t.decode_sg_active(), sg) << what;
  EXPECT_EQ(t.decode_active(), !sg) << what;
}

// Runs decode step `st` under `lanes` and each split setting, and checks it against `want`, that the subgroup
// kernel ran, and its merge where the keys split.
void check_splits(Sdpa& t, uint32_t lanes, const Sdpa::Step& st, const std::vector<float>& want,
                  const std::string& what) {
  const int64_t ctx = st.pos + 1;
  webgpu::ScopedTuning on(gpu(), with_lanes(lanes));
  expect_attn_close(t.run(st), want, what + " default split rule");
  expect_route(t, true, what + " default split rule");
  {
    SplitThreshold never(std::numeric_limits<int64_t>::max());
    expect_attn_close(t.run(st), want, what + " unsplit");
    expect_route(t, true, what + " unsplit");
    EXPECT_FALSE(t.decode_merge_active()) << what;
  }
  for (int64_t chunk : {1, 64, 300}) {
    SplitThreshold always(1, chunk);
    const std::string how = fmt::format("{} split chunk {}", what, chunk);
    expect_attn_close(t.run(st), want, how);
    expect_route(t, true, how);
    EXPECT_EQ(t.decode_merge_active(), ctx > chunk) << how;  // one chunk: no merge
  }
}

// Every lanes value on each shape of the dtype (graph built and run under it), the contexts under every split
// setting. Where the rule rejects a shape at some lanes, the graph must not have the subgroup kernel (not run: the
// fallback's values are FallsBackToTheDecodeKernel's, and each sdpa_decode.wgsl variant costs lavapipe seconds to
// compile at its first dispatch).
void check_lanes_shapes_contexts(DType kv) {
  struct Case {
    int64_t B, Hq, Hkv, D;
    bool every_context;  // else a few of them
    bool f16;            // also with f16 caches
  };
  const int64_t C = 1001;
  const std::vector<int32_t> all_pos = {0, 62, 63, 64, 128, 256, 999, int32_t(C - 1)};
  const std::vector<int32_t> few_pos = {0, 64, 256, int32_t(C - 1)};
  // HB 4 (U 4, 8 keys per step on f16 at lanes 8); HB 7 (U 4); two head blocks of 8 and 4 (D/4 = 4 caps the lanes
  // at 4); one head of 5 vec4 per lane (U 1, 3 on f16; at lanes 2, 10 vec4: f16 only, U 1); HB 2 with D/4 = 8,
  // which every lanes value fits; SmolLM2-135M's HB 3 with D/4 = 16 (lanes 4 and 8; U 8 on f16 at lanes 8).
  const std::vector<Case> cases = {{2, 8, 2, 64, true, true}, {1, 7, 1, 32, true, false}, {1, 12, 1, 16, false, false},
                                   {1, 2, 2, 80, false, true}, {2, 4, 2, 32, false, true}, {1, 9, 3, 64, false, true}};
  for (uint32_t lanes : {1u, 2u, 4u, 8u}) {
    int sg_shapes = 0;
    for (const Case& c : cases) {
      if (kv == DType::F16 && !c.f16) continue;
      const int64_t l = sg_lanes(lanes, c.Hq, c.Hkv, c.D, kv);
      const std::string shape = fmt::format("{} lanes {} (runs {}) B={} Hq={} Hkv={} D={}",
                                            kv == DType::F16 ? "f16" : "f32", lanes, l, c.B, c.Hq, c.Hkv, c.D);
      std::unique_ptr<Sdpa> tp;
      {
        webgpu::ScopedTuning built(gpu(), with_lanes(lanes));
        tp = std::make_unique<Sdpa>(c.B, 1, c.Hq, c.Hkv, c.D, C, true, false, /*fill_max=*/C, std::nullopt, 0, 0, kv);
      }
      Sdpa& t = *tp;
      ASSERT_EQ(t.decode_sg_built(), l > 0) << shape;
      if (l == 0) continue;
      ++sg_shapes;
      t.set_fill(C, 0);
      bool filled = true;
      for (int32_t pos : c.every_context ? all_pos : few_pos) {
        auto st = t.make_step(1, pos);
        const std::string what = fmt::format("{} context {}", shape, pos + 1);
        std::vector<float> first;
        {
          webgpu::ScopedTuning on(gpu(), with_lanes(lanes));
          first = t.run(st);  // runs the fill once
        }
        if (filled) t.set_fill(0, 0), filled = false;
        auto want = t.expected(st);
        expect_attn_close(first, want, what + " first run");
        check_splits(t, lanes, st, want, what);
        if (::testing::Test::HasFailure()) return;
      }
    }
    EXPECT_GT(sg_shapes, 0) << "lanes " << lanes << ": no shape ran the subgroup kernel";
  }
}

}  // namespace

TEST(SdpaDecodeSg, LanesShapesContextsAndSplits) {
  if (!gpu().has_subgroups()) GTEST_SKIP() << "the adapter has no subgroups";
  check_lanes_shapes_contexts(DType::F32);
}

TEST(SdpaDecodeSg, F16Caches) {
  if (!gpu().has_subgroups()) GTEST_SKIP() << "the adapter has no subgroups";
  check_lanes_shapes_contexts(DType::F16);
}

// One graph at lanes 8 through live-dim changes (SdpaDecode.LiveDimChangesOnOneGraph's steps): a prefill, decode
// steps with growing position (split into single keys, so the split count changes every step), a long step at
// context 901 (unsplit and in chunks of 64 too, where every key group has keys; then 64 splits), a short step after
// it (fewer splits: the longer step's partials must not leak into the merge), a prefill after decodes, decode again.
TEST(SdpaDecodeSg, LiveDimChangesOnOneGraph) {
  if (!gpu().has_subgroups()) GTEST_SKIP() << "the adapter has no subgroups";
  ASSERT_GT(sg_lanes(8, 8, 2, 64, DType::F32), 0);
  webgpu::ScopedTuning lanes(gpu(), with_lanes(8));
  Sdpa t(1, 16, 8, 2, 64, 1024, true, false, /*fill_max=*/900);
  SplitThreshold always(1, 1);
  auto pre = t.make_step(16, 0);
  t.set_fill(0, 0);
  expect_attn_close(t.run(pre), t.expected(pre), "prefill 16");
  EXPECT_FALSE(t.decode_sg_active());
  for (int32_t pos = 16; pos < 21; ++pos) {
    auto st = t.make_step(1, pos);
    expect_attn_close(t.run(st), t.expected(st), fmt::format("decode at {}", pos));
    expect_route(t, true, fmt::format("decode at {}", pos));
    EXPECT_TRUE(t.decode_merge_active());
  }
  t.set_fill(879, 21);  // rows 21..899, then a step at 900
  auto lng = t.make_step(1, 900);
  const std::vector<float> want_lng = t.expected(lng);
  {  // every key group of every subgroup busy: the keys unsplit, then 15 chunks of 64
    SplitThreshold never(std::numeric_limits<int64_t>::max());
    expect_attn_close(t.run(lng), want_lng, "decode at 900 unsplit");
    expect_route(t, true, "decode at 900 unsplit");
    SplitThreshold chunks(1, 64);
    expect_attn_close(t.run(lng), want_lng, "decode at 900 in chunks of 64");
    expect_route(t, true, "decode at 900 in chunks of 64");
  }
  expect_attn_close(t.run(lng), want_lng, "decode at 900");
  expect_route(t, true, "decode at 900");
  EXPECT_TRUE(t.decode_merge_active());
  t.set_fill(0, 0);
  auto shrt = t.make_step(1, 21);  // rewinds: context 22 of the same cache
  expect_attn_close(t.run(shrt), t.expected(shrt), "decode at 21 after 900");
  expect_route(t, true, "decode at 21 after 900");
  EXPECT_TRUE(t.decode_merge_active());
  auto pre2 = t.make_step(5, 22);
  expect_attn_close(t.run(pre2), t.expected(pre2), "prefill 5 at 22 after decodes");
  EXPECT_FALSE(t.decode_sg_active());
  EXPECT_FALSE(t.decode_active());
  auto last = t.make_step(1, 27);
  expect_attn_close(t.run(last), t.expected(last), "decode at 27 after the prefill");
  expect_route(t, true, "decode at 27 after the prefill");
}

// sdpa_decode.wgsl's main runs instead, with the same values: for a shape the rule rejects (18 heads of D 64 on a
// kv head: 8 heads' subgroup states of 16 vec4 overflow the 1024 of workgroup memory with subgroups of 8), in a
// graph built at lanes 0 (whatever the policy says at execute), and in a graph built at lanes 8 while the policy
// at execute says 0 (it is read at every execute; back at lanes 8, or at lanes 2, the graph runs the subgroup
// kernel it was built with).
TEST(SdpaDecodeSg, FallsBackToTheDecodeKernel) {
  if (!gpu().has_subgroups()) GTEST_SKIP() << "the adapter has no subgroups";
  const int64_t C = 300;
  {
    const bool rejected = sg_lanes(8, 18, 1, 64, DType::F32) == 0;
    if (gpu().facts().subgroup_min <= 8) EXPECT_TRUE(rejected);  // lavapipe: subgroups of 8
    webgpu::ScopedTuning lanes(gpu(), with_lanes(8));
    Sdpa t(1, 1, 18, 1, 64, C, true, false, /*fill_max=*/C);
    EXPECT_EQ(t.decode_sg_built(), !rejected);
    t.set_fill(C, 0);
    bool filled = true;
    for (int32_t pos : {0, 64, 256, int32_t(C - 1)}) {
      auto st = t.make_step(1, pos);
      const std::vector<float> first = t.run(st);
      if (filled) t.set_fill(0, 0), filled = false;
      auto want = t.expected(st);
      const std::string what = fmt::format("Hq=18 Hkv=1 D=64 lanes 8 context {}", pos + 1);
      expect_attn_close(first, want, what);
      expect_route(t, !rejected, what);
      SplitThreshold always(1, 64);
      expect_attn_close(t.run(st), want, what + " split chunk 64");
      expect_route(t, !rejected, what + " split chunk 64");
      EXPECT_EQ(t.decode_merge_active(), pos + 1 > 64) << what;
    }
  }
  // B 2, 4 query heads on each of 2 kv heads of D 32: a shape every lanes value fits.
  ASSERT_GT(sg_lanes(8, 4, 2, 32, DType::F32), 0);
  {
    std::unique_ptr<Sdpa> tp;
    {
      webgpu::ScopedTuning off(gpu(), with_lanes(0));
      tp = std::make_unique<Sdpa>(2, 1, 4, 2, 32, C);
    }
    EXPECT_FALSE(tp->decode_sg_built());
    for (uint32_t lanes : {0u, 8u}) {
      webgpu::ScopedTuning run(gpu(), with_lanes(lanes));
      auto st = tp->make_step(1, 100 + int32_t(lanes));
      const std::string what = fmt::format("built at lanes 0, run at {}", lanes);
      expect_attn_close(tp->run(st), tp->expected(st), what);
      expect_route(*tp, false, what);
    }
  }
  std::unique_ptr<Sdpa> tp;
  {
    webgpu::ScopedTuning built(gpu(), with_lanes(8));
    tp = std::make_unique<Sdpa>(2, 1, 4, 2, 32, C);
  }
  EXPECT_TRUE(tp->decode_sg_built());
  int32_t pos = 0;
  for (uint32_t lanes : {8u, 0u, 2u, 0u, 8u}) {
    webgpu::ScopedTuning run(gpu(), with_lanes(lanes));
    for (int64_t chunk : {int64_t(0), int64_t(16)}) {  // 0: never split
      std::optional<SplitThreshold> split;
      if (chunk > 0) split.emplace(1, chunk);
      else split.emplace(std::numeric_limits<int64_t>::max());
      auto st = tp->make_step(1, pos);
      pos += 29;  // contexts 1, 30, .. 262
      const std::string what = fmt::format("built at lanes 8, run at {} chunk {} context {}", lanes, chunk, st.pos + 1);
      expect_attn_close(tp->run(st), tp->expected(st), what);
      expect_route(*tp, lanes > 0, what);
      EXPECT_EQ(tp->decode_merge_active(), chunk > 0 && st.pos + 1 > chunk) << what;
    }
  }
}

TEST(SdpaDecodeSg, LanesKnob) {
  auto parse = [](const char* value) {
    return webgpu::parse_tuning_env(
        [&](const char* n) { return std::string(n) == "WGRT_SDPA_DECODE_LANES" ? value : nullptr; });
  };
  webgpu::DeviceFacts plain, sg;
  sg.subgroups = true;
  sg.subgroup_min = 8;
  sg.subgroup_max = 8;
  for (uint32_t lanes : {0u, 1u, 2u, 4u, 8u, 16u, 32u}) {
    const std::string v = std::to_string(lanes);
    const webgpu::TuningOverrides o = parse(v.c_str());
    ASSERT_TRUE(o.sdpa_decode_lanes.has_value()) << v;
    EXPECT_EQ(*o.sdpa_decode_lanes, lanes);
    EXPECT_EQ(webgpu::Tuning::for_device(sg, o).sdpa_decode_lanes, lanes);
    EXPECT_EQ(webgpu::Tuning::for_device(plain, o).sdpa_decode_lanes, 0u) << v;  // no subgroups: off
  }
  // The policy: 16 lanes on GPUs with subgroups (sg, plain: GPU facts); off on CPU adapters and without subgroups.
  webgpu::DeviceFacts cpu_sg = sg;
  cpu_sg.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(sg, {}).sdpa_decode_lanes, 16u);
  EXPECT_EQ(webgpu::Tuning::for_device(cpu_sg, {}).sdpa_decode_lanes, 0u);
  EXPECT_EQ(webgpu::Tuning::for_device(plain, {}).sdpa_decode_lanes, 0u);
  EXPECT_EQ(webgpu::Tuning::for_device(sg, parse("0")).sdpa_decode_lanes, 0u);  // the knob turns it off
  EXPECT_FALSE(parse(nullptr).sdpa_decode_lanes.has_value());  // unset (or empty): the policy's value
  EXPECT_FALSE(parse("").sdpa_decode_lanes.has_value());
  for (const char* bad : {"3", "64", "a", "1,2", "-1", "8 "}) EXPECT_THROW(parse(bad), InvalidArgument) << bad;
  try {
    parse("3");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("WGRT_SDPA_DECODE_LANES"), std::string::npos) << e.what();
  }
}
