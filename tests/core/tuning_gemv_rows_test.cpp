// WGRT_GEMV_MAX_ROWS and WGRT_GEMV_GGML (webgpu/tuning_env.cpp): the rows up to which linear layers take the GEMV route, for
// batched serving measurements (above it the GEMM reads each weight once for all rows). Malformed values are
// a clear error naming the variable; well-formed ones replace the rule's 8.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "webgpu/tuning.h"
#include "wgrt/error.h"

using namespace wgrt;

namespace {

webgpu::Tuning tuned(const std::map<std::string, std::string>& env) {
  auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  return webgpu::Tuning::for_device(webgpu::DeviceFacts{}, webgpu::parse_tuning_env(get));
}

// var=v must be rejected with InvalidArgument naming it: "VAR='v' is malformed".
void expect_malformed(const std::string& var, const std::string& v) {
  try {
    tuned({{var, v}});
    ADD_FAILURE() << var << "=" << v << " accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(var + "='" + v + "' is malformed"), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Tuning, GemvMaxRowsOverride) {
  EXPECT_EQ(tuned({}).gemv_max_rows, 8);
  EXPECT_EQ(tuned({{"WGRT_GEMV_MAX_ROWS", "1"}}).gemv_max_rows, 1);
  EXPECT_EQ(tuned({{"WGRT_GEMV_MAX_ROWS", "0"}}).gemv_max_rows, 0);
  for (const char* v : {"9", "-1", "2x", "1,2", "abc"}) {
    expect_malformed("WGRT_GEMV_MAX_ROWS", v);
  }
}

// WGRT_GEMV_GGML: the block-format GEMV kernel (blocks = gemv_kq.wgsl, default on, RPT 2; generic =
// gemv_ggml.wgsl) and gemv_kq's rows of W per invocation.
TEST(Tuning, GemvGgmlOverride) {
  EXPECT_TRUE(tuned({}).ggml_gemv_blocks);
  EXPECT_EQ(tuned({}).ggml_gemv_rpt, 2u);
  EXPECT_FALSE(tuned({{"WGRT_GEMV_GGML", "generic"}}).ggml_gemv_blocks);
  EXPECT_TRUE(tuned({{"WGRT_GEMV_GGML", "blocks"}}).ggml_gemv_blocks);
  EXPECT_EQ(tuned({{"WGRT_GEMV_GGML", "blocks,4"}}).ggml_gemv_rpt, 4u);
  EXPECT_EQ(tuned({{"WGRT_GEMV_GGML", "blocks,1"}}).ggml_gemv_rpt, 1u);
  // The rows by type and width: GPUs take ggml_gemv_rpt for every type below 32768 rows of W and 4 from there
  // (LM heads); CPU adapters 4 except Q6_K (14) at every width; a set RPT wins everywhere.
  webgpu::DeviceFacts gpu;
  const webgpu::Tuning on_gpu = webgpu::Tuning::for_device(gpu);
  for (int64_t wtype : {8, 12, 14}) {
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 8192), 2u) << wtype;
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 32767), 2u) << wtype;
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 32768), 4u) << wtype;
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 128256), 4u) << wtype;
  }
  webgpu::DeviceFacts cpu;
  cpu.cpu_adapter = true;
  const webgpu::Tuning on_cpu = webgpu::Tuning::for_device(cpu);
  for (int64_t n : {int64_t(8192), int64_t(128256)}) {
    EXPECT_EQ(on_cpu.ggml_gemv_rpt_for(8, n), 4u) << n;
    EXPECT_EQ(on_cpu.ggml_gemv_rpt_for(12, n), 4u) << n;
    EXPECT_EQ(on_cpu.ggml_gemv_rpt_for(14, n), 2u) << n;
  }
  auto get1 = [](const char* name) -> const char* { return std::string(name) == "WGRT_GEMV_GGML" ? "blocks,1" : nullptr; };
  const webgpu::Tuning cpu_forced = webgpu::Tuning::for_device(cpu, webgpu::parse_tuning_env(get1));
  const webgpu::Tuning gpu_forced = webgpu::Tuning::for_device(gpu, webgpu::parse_tuning_env(get1));
  for (int64_t wtype : {8, 12, 14}) {
    EXPECT_EQ(cpu_forced.ggml_gemv_rpt_for(wtype, 8192), 1u) << wtype;
    EXPECT_EQ(gpu_forced.ggml_gemv_rpt_for(wtype, 128256), 1u) << wtype;
  }
  for (const char* v : {"block", "blocks,3", "blocks,", "generic,2", "1"}) {
    expect_malformed("WGRT_GEMV_GGML", v);
  }
}

// The GPUs' rules for a GEMV with the RMSNorm folded in (ggml_gemv_norm_rpt 4 from ggml_gemv_norm_n 8192 rows of W:
// the gate/up GEMVs) and for narrow ones (1 row of W per invocation below ggml_gemv_narrow_n 4096 rows),
// WGRT_GEMV_KQ_NORM_RPT (0 turns it off), WGRT_GEMV_KQ_NARROW_N (0 turns it off) and WGRT_GEMV_GGML=blocks,R (turns
// both off unless their own variables are set too); the wide rule before the norm rule before the narrow one.
TEST(Tuning, GemvGgmlNormAndNarrowRules) {
  webgpu::DeviceFacts gpu;
  const webgpu::Tuning on_gpu = webgpu::Tuning::for_device(gpu);
  for (int64_t wtype : {6, 8, 12, 14}) {
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 8192, true), 4u) << wtype;
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 9728, true), 4u) << wtype;
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 8191, true), 2u) << wtype;   // too few workgroups
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 9728, false), 2u) << wtype;  // no norm: the default 2
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 1152, true), 1u) << wtype;   // a q/k/v stack: narrow
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 4095, false), 1u) << wtype;
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 4096, false), 2u) << wtype;
    EXPECT_EQ(on_gpu.ggml_gemv_rpt_for(wtype, 896, false), 1u) << wtype;
  }
  webgpu::DeviceFacts cpu;
  cpu.cpu_adapter = true;
  const webgpu::Tuning on_cpu = webgpu::Tuning::for_device(cpu);
  EXPECT_EQ(on_cpu.ggml_gemv_norm_rpt, 0u);
  EXPECT_EQ(on_cpu.ggml_gemv_narrow_n, 0);
  EXPECT_EQ(on_cpu.ggml_gemv_rpt_for(14, 9728, true), 2u);  // CPU adapters: by type only
  EXPECT_EQ(on_cpu.ggml_gemv_rpt_for(12, 896, false), 4u);
  auto with = [&](const char* var, const char* value) {
    auto get = [&](const char* name) -> const char* { return std::string(name) == var ? value : nullptr; };
    return webgpu::Tuning::for_device(gpu, webgpu::parse_tuning_env(get));
  };
  EXPECT_EQ(with("WGRT_GEMV_KQ_NORM_RPT", "0").ggml_gemv_rpt_for(12, 16384, true), 2u);
  EXPECT_EQ(with("WGRT_GEMV_KQ_NORM_RPT", "1").ggml_gemv_rpt_for(12, 16384, true), 1u);
  EXPECT_EQ(with("WGRT_GEMV_KQ_NORM_RPT", "4").ggml_gemv_rpt_for(12, 4096, true), 2u);
  EXPECT_EQ(with("WGRT_GEMV_GGML", "blocks,1").ggml_gemv_rpt_for(12, 16384, true), 1u);
  EXPECT_EQ(with("WGRT_GEMV_GGML", "blocks,2").ggml_gemv_rpt_for(12, 896, false), 2u);
  EXPECT_EQ(with("WGRT_GEMV_KQ_NARROW_N", "0").ggml_gemv_rpt_for(12, 896, false), 2u);
  EXPECT_EQ(with("WGRT_GEMV_KQ_NARROW_N", "1024").ggml_gemv_rpt_for(12, 1152, false), 2u);
  EXPECT_EQ(with("WGRT_GEMV_KQ_NARROW_N", "1024").ggml_gemv_rpt_for(12, 896, false), 1u);
  // Order: wide (4 from 32768 rows) before norm before narrow.
  EXPECT_EQ(with("WGRT_GEMV_KQ_NORM_RPT", "1").ggml_gemv_rpt_for(12, 32768, true), 4u);
  EXPECT_EQ(with("WGRT_GEMV_KQ_NARROW_N", "20000").ggml_gemv_rpt_for(12, 16384, true), 4u);
  EXPECT_EQ(with("WGRT_GEMV_KQ_NARROW_N", "20000").ggml_gemv_rpt_for(12, 16384, false), 1u);
  webgpu::Tuning forced = on_gpu;
  forced.force_ggml_gemv_rpt(2);
  EXPECT_EQ(forced.ggml_gemv_rpt_for(12, 896, false), 2u);
  EXPECT_EQ(forced.ggml_gemv_rpt_for(12, 16384, true), 2u);
  EXPECT_EQ(forced.ggml_gemv_rpt_for(12, 128256, false), 2u);
  // Malformed values name the variable (an empty value is unset).
  const std::vector<std::pair<const char*, const char*>> malformed = {
      {"WGRT_GEMV_KQ_NORM_RPT", "3"},  {"WGRT_GEMV_KQ_NORM_RPT", "8"},    {"WGRT_GEMV_KQ_NORM_RPT", "-1"},
      {"WGRT_GEMV_KQ_NORM_RPT", "4,2"}, {"WGRT_GEMV_KQ_NORM_RPT", "x"},   {"WGRT_GEMV_KQ_NARROW_N", "-1"},
      {"WGRT_GEMV_KQ_NARROW_N", "x"},  {"WGRT_GEMV_KQ_NARROW_N", "1,2"}, {"WGRT_GEMV_KQ_NARROW_N", "2048x"}};
  for (const auto& [var, v] : malformed) {
    try {
      with(var, v);
      ADD_FAILURE() << var << "=" << v << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(var) + "='" + v + "' is malformed"), std::string::npos) << e.what();
    }
  }
}

// WGRT_GEMV_Q4_MULTI (shape) and WGRT_GEMV_Q4_MULTI_ROWS (from how many rows of x it applies; 0 off).
TEST(Tuning, GemvQ4MultiOverride) {
  EXPECT_EQ(tuned({}).gemv_q4_multi_min_rows, 0);  // DeviceFacts{}: no packed dot products
  EXPECT_EQ(tuned({{"WGRT_GEMV_Q4_MULTI_ROWS", "4"}}).gemv_q4_multi_min_rows, 4);
  EXPECT_EQ(tuned({{"WGRT_GEMV_Q4_MULTI_ROWS", "0"}}).gemv_q4_multi_min_rows, 0);
  EXPECT_EQ(tuned({{"WGRT_GEMV_Q4_MULTI", "8,32,4"}}).gemv_q4_multi_forced, (webgpu::GemvQ4Shape{8, 32, 4, 0}));
  webgpu::DeviceFacts gpu;
  gpu.packed_dot = true;
  auto get = [](const char* n) -> const char* { return std::string(n) == "WGRT_GEMV_Q4_MULTI_ROWS" ? "0" : nullptr; };
  EXPECT_EQ(webgpu::Tuning::for_device(gpu, webgpu::parse_tuning_env(get)).gemv_q4_multi_min_rows, 0);
  for (const auto& [var, v] : std::vector<std::pair<std::string, std::string>>{
           {"WGRT_GEMV_Q4_MULTI_ROWS", "1"}, {"WGRT_GEMV_Q4_MULTI_ROWS", "9"}, {"WGRT_GEMV_Q4_MULTI_ROWS", "2,3"},
           {"WGRT_GEMV_Q4_MULTI", "16,16"}, {"WGRT_GEMV_Q4_MULTI", "32,16,4"}, {"WGRT_GEMV_Q4_MULTI", "16,16,3"}}) {
    expect_malformed(var, v);
  }
}

// The block GEMV's widest route: 8 rows of x per grid layer on GPUs, 4 on CPU adapters (the 8-row layers spill
// on lavapipe).
TEST(Tuning, GemvGgmlWidestRouteByAdapterKind) {
  webgpu::DeviceFacts f;
  EXPECT_EQ(webgpu::Tuning::for_device(f).ggml_gemv_max_mb, 8u);
  f.cpu_adapter = true;
  EXPECT_EQ(webgpu::Tuning::for_device(f).ggml_gemv_max_mb, 4u);
  EXPECT_NE(webgpu::Tuning::for_device(f).describe().find("up to 4 rows of x per layer"), std::string::npos);
}

// The block GEMV's shape by adapter kind: GPUs 32 k lanes, interleaved chunks; CPU adapters 16 k lanes and the
// streamed one-row route at 16 rows of W per invocation (WGRT_GEMV_GGML=blocks,R sets that too); the constant chunk
// loop off on both. WGRT_GEMV_KQ_TK / _STREAM / _CONST_CHUNKS override them; malformed values are rejected.
TEST(Tuning, GemvGgmlShapeByAdapterKind) {
  webgpu::DeviceFacts f;
  const webgpu::Tuning on_gpu = webgpu::Tuning::for_device(f);
  EXPECT_EQ(on_gpu.ggml_gemv_tk, 32u);
  EXPECT_FALSE(on_gpu.ggml_gemv_stream);
  EXPECT_EQ(on_gpu.ggml_gemv_const_chunks, 0u);
  f.cpu_adapter = true;
  const webgpu::Tuning on_cpu = webgpu::Tuning::for_device(f);
  EXPECT_EQ(on_cpu.ggml_gemv_tk, 16u);
  EXPECT_TRUE(on_cpu.ggml_gemv_stream);
  EXPECT_EQ(on_cpu.ggml_gemv_stream_rpt, 16u);
  EXPECT_EQ(on_cpu.ggml_gemv_const_chunks, 0u);
  EXPECT_NE(on_cpu.describe().find("16 k lanes; one-row route streamed, RPT 16; constant chunk loop off"), std::string::npos)
      << on_cpu.describe();
  auto with = [&](const char* var, const char* v) {
    auto get = [&](const char* n) -> const char* { return std::string(n) == var ? v : nullptr; };
    return webgpu::Tuning::for_device(f, webgpu::parse_tuning_env(get));
  };
  EXPECT_EQ(with("WGRT_GEMV_KQ_TK", "32").ggml_gemv_tk, 32u);
  EXPECT_FALSE(with("WGRT_GEMV_KQ_STREAM", "0").ggml_gemv_stream);
  EXPECT_EQ(with("WGRT_GEMV_KQ_CONST_CHUNKS", "2").ggml_gemv_const_chunks, 2u);
  EXPECT_EQ(with("WGRT_GEMV_GGML", "blocks,2").ggml_gemv_stream_rpt, 2u);
  EXPECT_EQ(with("WGRT_GEMV_GGML", "blocks,8").ggml_gemv_rpt, 8u);
  for (const auto& [var, v] : std::vector<std::pair<std::string, std::string>>{
           {"WGRT_GEMV_KQ_TK", "8"}, {"WGRT_GEMV_KQ_TK", "64"}, {"WGRT_GEMV_KQ_TK", "16,"}, {"WGRT_GEMV_KQ_STREAM", "2"},
           {"WGRT_GEMV_KQ_CONST_CHUNKS", "9"}, {"WGRT_GEMV_KQ_CONST_CHUNKS", "-1"}, {"WGRT_GEMV_GGML", "blocks,16"}}) {
    expect_malformed(var, v);
  }
}
