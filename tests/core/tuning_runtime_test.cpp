// The graph-runtime and model-size entries of the tuning policy (webgpu/tuning.h): submit_chunk, decode_pipeline,
// gpu_sampling and prefill_chunk, their adapter rules and their WGRT_* overrides (malformed values name the
// variable; empty is unset).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "webgpu/tuning.h"
#include "wgrt/error.h"

using namespace wgrt;

namespace {
webgpu::Tuning tuned(const std::map<std::string, std::string>& env, bool cpu_adapter) {
  webgpu::DeviceFacts f;
  f.cpu_adapter = cpu_adapter;
  auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  return webgpu::Tuning::for_device(f, webgpu::parse_tuning_env(get));
}
}  // namespace

TEST(TuningRuntime, RulesAndOverrides) {
  EXPECT_TRUE(tuned({}, false).decode_pipeline);   // GPUs: the GPU-resident decode loop
  EXPECT_FALSE(tuned({}, true).decode_pipeline);   // CPU adapters: step at a time
  EXPECT_EQ(tuned({}, false).submit_chunk, 0u);    // one submit per execute
  EXPECT_EQ(tuned({}, true).submit_chunk, 0u);
  EXPECT_TRUE(tuned({{"WGRT_DECODE_PIPELINE", "1"}}, true).decode_pipeline);
  EXPECT_FALSE(tuned({{"WGRT_DECODE_PIPELINE", "0"}}, false).decode_pipeline);
  EXPECT_TRUE(tuned({{"WGRT_DECODE_PIPELINE", ""}}, false).decode_pipeline);
  EXPECT_TRUE(tuned({}, false).gpu_sampling);      // GPUs: the draw on the GPU (ops/sampling)
  EXPECT_FALSE(tuned({}, true).gpu_sampling);      // CPU adapters: text::Sampler (BENCHMARKS.md, sampling)
  EXPECT_TRUE(tuned({{"WGRT_GPU_SAMPLING", "1"}}, true).gpu_sampling);
  EXPECT_FALSE(tuned({{"WGRT_GPU_SAMPLING", "0"}}, false).gpu_sampling);
  EXPECT_NE(tuned({}, true).describe().find("sampling: CPU"), std::string::npos);
  EXPECT_EQ(tuned({{"WGRT_SUBMIT_CHUNK", "48"}}, false).submit_chunk, 48u);
  EXPECT_EQ(tuned({{"WGRT_SUBMIT_CHUNK", "0"}}, true).submit_chunk, 0u);
  EXPECT_NE(tuned({{"WGRT_SUBMIT_CHUNK", "7"}}, false).describe().find("submit chunk: 7 dispatches"), std::string::npos);
  const std::map<std::string, std::vector<const char*>> bad = {
      {"WGRT_DECODE_PIPELINE", {"2", "on", "-1", "1,1"}},
      {"WGRT_GPU_SAMPLING", {"2", "yes", "-1"}},
      {"WGRT_SUBMIT_CHUNK", {"-1", "4k", "1,2", "99999999"}}};
  for (const auto& [var, values] : bad)
    for (const char* v : values) {
      try {
        tuned({{var, v}}, false);
        ADD_FAILURE() << var << "=" << v << " accepted";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(var + "='" + v + "' is malformed"), std::string::npos) << e.what();
      }
    }
}

// The prefill chunk (tokens per prefill execute when the caller gives none; Llm::load fits it to the context and
// the binding limit, models::default_prefill_chunk): 2048 on GPUs, 512 on CPU adapters.
TEST(TuningRuntime, PrefillChunkByAdapterKind) {
  EXPECT_EQ(tuned({}, false).prefill_chunk, 2048);
  EXPECT_EQ(tuned({}, true).prefill_chunk, 512);
}
