// llama.sdpa_with_kv_cache on the register-blocked prefill route (sdpa_flash_prefill.wgsl, tuning
// sdpa_prefill_rpt) against the double-precision reference (reference/attention_ref.h): prompt lengths around
// its 32-key tiles and 16/32/64-row blocks (2, 17, 63, 64, 65, 129, 513), chunks after earlier tokens (pos > 0)
// on one graph, decode steps in between (S = 1 must leave the route), GQA groups 1, 4 and 7, head dims 8, 36,
// 64, 80 and 128 (the route's up to sdpa_prefill_max_d; 37, 132 and D > max_d keep the wide route), B = 2,
// causal and non-causal, every rows-per-invocation variant and the route off; its split-KV variant (keys split across workgroups, the combine
// dispatch) at lengths 1, 31, 33, 63, 65, 511, 513 after earlier tokens, GQA 1/4/8, chunks of 32-256 keys.
// Tolerance: |gpu - ref| <= 1e-4 + 1e-3 |ref| (expect_attn_close).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "sdpa_test_util.h"
#include "webgpu/device.h"
#include "webgpu/tuning.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::expect_attn_close;
using wgrt::test::gpu;
using wgrt::test::Sdpa;

namespace {

constexpr const char* kPrefillKernel = "sdpa_flash_prefill.wgsl:main";
constexpr const char* kPrefillMerge = "sdpa_flash_prefill.wgsl:combine";

// Key splits: chunks of >= min_chunk keys where the blocks are below `target` workgroups (0: no split).
struct SplitRule {
  int64_t min_chunk = 256, target = 0;
};

webgpu::Tuning with_prefill(uint32_t rpt, SplitRule split = {}, int64_t max_d = 128) {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_prefill_rpt = rpt;
  t.sdpa_prefill_max_d = max_d;
  t.sdpa_prefill_split_min_chunk = split.min_chunk;
  t.sdpa_prefill_split_target_workgroups = split.target;
  return t;
}

struct Case {
  int64_t B, Hq, Hkv, D;
  bool causal;
};

std::string name(const Case& c) {
  return fmt::format("B={} Hq={} Hkv={} D={} {}", c.B, c.Hq, c.Hkv, c.D, c.causal ? "causal" : "non-causal");
}

// Runs the steps (lengths, positions following each other from 0) on one graph built with prefill rows per
// invocation `rpt` (0: off), checking each output and whether the prefill kernel ran.
// With a split rule, checks that the combine dispatch ran where the plan splits (the keys span several chunks).
void run_steps(const Case& c, uint32_t rpt, const std::vector<int64_t>& lengths, SplitRule split = {},
               int64_t max_d = 128) {
  webgpu::ScopedTuning scoped(gpu(), with_prefill(rpt, split, max_d));
  int64_t s_max = 1, ctx = 0;
  for (int64_t S : lengths) s_max = std::max(s_max, S), ctx += S;
  Sdpa t(c.B, s_max, c.Hq, c.Hkv, c.D, ctx + 3, c.causal);
  const bool claims = rpt > 0 && c.D % 4 == 0 && c.D <= std::min<int64_t>(max_d, 128);
  int32_t pos = 0;
  for (int64_t S : lengths) {
    auto st = t.make_step(S, pos);
    const std::string what = fmt::format("{} rpt {} S={} pos={}", name(c), rpt, S, pos);
    auto got = t.run(st);
    const bool want_route = claims && S > 1 && S * (c.Hq / c.Hkv) > gpu().tuning().sdpa_narrow_max_rows;
    EXPECT_EQ(t.active(kPrefillKernel), want_route) << what;
    if (split.target > 0 && want_route) {
      const int64_t chunk = (std::max<int64_t>(split.min_chunk, 1) + 31) / 32 * 32;  // target >> blocks here
      EXPECT_EQ(t.active(kPrefillMerge), pos + S > chunk) << what;
    } else {
      EXPECT_FALSE(t.active(kPrefillMerge)) << what;
    }
    expect_attn_close(got, t.expected(st), what);
    pos += int32_t(S);
  }
}

}  // namespace

// Every length of the brief in one growing context (pos 0, then chunks after earlier tokens and decode steps).
TEST(SdpaPrefill, OddLengthsAfterEarlierTokensGroupsAndHeadDims) {
  const std::vector<int64_t> lengths = {17, 1, 2, 63, 64, 1, 65, 129, 513};
  for (Case c : {Case{1, 4, 1, 64, true}, Case{2, 7, 1, 64, true}, Case{1, 2, 2, 64, true}, Case{1, 8, 2, 36, true},
                 Case{1, 3, 3, 8, false}})
    run_steps(c, 4, lengths);
}

TEST(SdpaPrefill, FirstChunkLengthsAtPositionZero) {
  for (int64_t S : {2, 63, 64, 65, 129}) {
    run_steps(Case{1, 4, 1, 64, true}, 4, {S});
    run_steps(Case{1, 7, 1, 64, false}, 4, {S});
  }
}

TEST(SdpaPrefill, RowsPerInvocationVariantsAndRouteOff) {
  const std::vector<int64_t> lengths = {17, 65, 1, 129};
  for (uint32_t rpt : {0u, 1u, 2u, 4u})
    for (Case c : {Case{1, 4, 1, 64, true}, Case{2, 7, 1, 36, false}, Case{1, 2, 2, 64, true}}) run_steps(c, rpt, lengths);
}

// Split-KV prefill: the brief's lengths in one growing context (first chunk at pos 0, then chunks after earlier
// tokens and a decode step), GQA 1, 4 and 8, B = 2, causal and not, chunks of 32, 64 and 256 keys, every rpt.
TEST(SdpaPrefill, SplitKeysOddLengthsGroupsAndVariants) {
  const std::vector<int64_t> lengths = {31, 1, 33, 63, 65, 511, 513};
  for (uint32_t rpt : {1u, 4u}) {
    run_steps(Case{1, 8, 1, 64, true}, rpt, lengths, {64, 1 << 20});
    run_steps(Case{1, 4, 1, 64, true}, rpt, lengths, {256, 1 << 20});
  }
  run_steps(Case{2, 2, 2, 36, true}, 2, lengths, {32, 1 << 20});
  run_steps(Case{1, 8, 2, 64, false}, 2, {33, 1, 65, 513}, {64, 1 << 20});
}

// The brief's lengths each as a first chunk (pos 0) with small splits: the diagonal tiles of every split.
TEST(SdpaPrefill, SplitKeysFirstChunks) {
  for (int64_t S : {31, 33, 63, 65, 511, 513})
    for (uint32_t rpt : {1u, 2u, 4u}) run_steps(Case{1, 4, 1, 64, true}, rpt, {S}, {32, 1 << 20});
}

// The split rule: off at target 0 or at or above it; chunks of whole 32-key tiles; at most 8 splits.
TEST(SdpaPrefill, SplitRuleFollowsTheTarget) {
  {  // 4 * 64 / 16 = 16 blocks of one kv head: target 16 does not split, 1 << 20 does.
    Case c{1, 4, 1, 64, true};
    run_steps(c, 1, {64}, {32, 0});
    webgpu::ScopedTuning scoped(gpu(), with_prefill(1, {32, 16}));
    Sdpa t(1, 64, 4, 1, 64, 64, true);
    auto st = t.make_step(64, 0);
    expect_attn_close(t.run(st), t.expected(st), "target 16");
    EXPECT_TRUE(t.active(kPrefillKernel));
    EXPECT_FALSE(t.active(kPrefillMerge));
  }
  auto parse = [](const char* v) {
    return webgpu::parse_tuning_env([v](const char* n) { return std::string(n) == "WGRT_SDPA_PREFILL_SPLIT" ? v : nullptr; });
  };
  auto o = parse("128,1024");
  ASSERT_TRUE(o.sdpa_prefill_split.has_value());
  webgpu::DeviceFacts f;
  const webgpu::Tuning tu = webgpu::Tuning::for_device(f, o);
  EXPECT_EQ(tu.sdpa_prefill_split_min_chunk, 128);
  EXPECT_EQ(tu.sdpa_prefill_split_target_workgroups, 1024);
  EXPECT_EQ(webgpu::Tuning::for_device(f, {}).sdpa_prefill_split_target_workgroups, 0);
  for (const char* bad : {"0,10", "128", "1,2,3", "x,1", "-1,4"}) {
    try {
      parse(bad);
      FAIL() << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("WGRT_SDPA_PREFILL_SPLIT"), std::string::npos) << e.what();
    }
  }
}

// Head dims 80 and 128 (fewer rows per invocation where 64-row blocks would not fit the workgroup memory, no V
// tile), split or not; dims the kernel does not claim (not a multiple of 4, above 128, above the policy's
// sdpa_prefill_max_d) keep the wide / narrow routes (and their values).
TEST(SdpaPrefill, HeadDimsUpTo128AndUnclaimed) {
  for (uint32_t rpt : {1u, 4u}) {
    run_steps(Case{1, 4, 1, 80, true}, rpt, {17, 1, 65});
    run_steps(Case{1, 8, 2, 128, true}, rpt, {33, 1, 65, 129});
  }
  run_steps(Case{1, 4, 1, 128, true}, 2, {63, 1, 65, 129}, {32, 1 << 20});
  run_steps(Case{2, 4, 4, 128, false}, 1, {33, 65}, {64, 1 << 20});
  for (Case c : {Case{1, 4, 1, 37, true}, Case{1, 4, 1, 132, true}}) run_steps(c, 4, {17, 1, 65});
  run_steps(Case{1, 4, 1, 80, true}, 4, {17, 1, 65}, {}, 64);
  webgpu::DeviceFacts gpu_facts, cpu_facts;
  cpu_facts.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(gpu_facts, {}).sdpa_prefill_max_d, 128);
  EXPECT_EQ(webgpu::Tuning::for_device(cpu_facts, {}).sdpa_prefill_max_d, 64);
}

TEST(SdpaPrefill, EnvironmentKnob) {
  auto parse = [](const char* v) {
    return webgpu::parse_tuning_env([v](const char* n) { return std::string(n) == "WGRT_SDPA_PREFILL" ? v : nullptr; });
  };
  EXPECT_EQ(parse("0").sdpa_prefill_rpt, 0u);
  EXPECT_EQ(parse("2").sdpa_prefill_rpt, 2u);
  EXPECT_FALSE(parse("").sdpa_prefill_rpt.has_value());
  for (const char* bad : {"3", "8", "x", "-1", "4,4"}) {
    try {
      parse(bad);
      FAIL() << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("WGRT_SDPA_PREFILL"), std::string::npos) << e.what();
    }
  }
  webgpu::DeviceFacts f;
  EXPECT_EQ(webgpu::Tuning::for_device(f, parse("2")).sdpa_prefill_rpt, 2u);
  f.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f, parse("1")).sdpa_prefill_rpt, 1u);
}

// The policy: 64-row blocks on every adapter kind (H200 and lavapipe measured best there).
TEST(SdpaPrefill, RowsPerInvocationByAdapterKind) {
  webgpu::DeviceFacts gpu_facts, cpu_facts;
  cpu_facts.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(gpu_facts, {}).sdpa_prefill_rpt, 4u);
  EXPECT_EQ(webgpu::Tuning::for_device(cpu_facts, {}).sdpa_prefill_rpt, 4u);
}
