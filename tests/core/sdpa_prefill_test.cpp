// llama.sdpa_with_kv_cache on the register-blocked prefill route (sdpa_flash_prefill.wgsl, tuning
// sdpa_prefill_rpt) against the double-precision reference (reference/attention_ref.h): prompt lengths around
// its 32-key tiles and 16/32/64-row blocks (2, 17, 63, 64, 65, 129, 513), chunks after earlier tokens (pos > 0)
// on one graph, decode steps in between (S = 1 must leave the route), GQA groups 1, 4 and 7, head dims 8, 36
// and 64 (the route's; 80 and 128 must keep the wide route), B = 2, causal and non-causal, every rows-per-
// invocation variant and the route off. Tolerance: |gpu - ref| <= 1e-4 + 1e-3 |ref| (expect_attn_close).
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

webgpu::Tuning with_prefill(uint32_t rpt) {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_prefill_rpt = rpt;
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
void run_steps(const Case& c, uint32_t rpt, const std::vector<int64_t>& lengths) {
  webgpu::ScopedTuning scoped(gpu(), with_prefill(rpt));
  int64_t s_max = 1, ctx = 0;
  for (int64_t S : lengths) s_max = std::max(s_max, S), ctx += S;
  Sdpa t(c.B, s_max, c.Hq, c.Hkv, c.D, ctx + 3, c.causal);
  const bool claims = rpt > 0 && c.D % 4 == 0 && c.D <= 64;
  int32_t pos = 0;
  for (int64_t S : lengths) {
    auto st = t.make_step(S, pos);
    const std::string what = fmt::format("{} rpt {} S={} pos={}", name(c), rpt, S, pos);
    auto got = t.run(st);
    const bool want_route = claims && S > 1 && S * (c.Hq / c.Hkv) > gpu().tuning().sdpa_narrow_max_rows;
    EXPECT_EQ(t.active(kPrefillKernel), want_route) << what;
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

// Head dims the kernel does not claim keep the wide route (and its values).
TEST(SdpaPrefill, UnclaimedHeadDimsKeepTheWideRoute) {
  for (Case c : {Case{1, 4, 1, 80, true}, Case{1, 4, 2, 128, true}, Case{1, 4, 1, 37, true}})
    run_steps(c, 4, {17, 1, 65});
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
  EXPECT_EQ(webgpu::Tuning::for_device(f, parse("1")).sdpa_prefill_rpt, 1u);
}
