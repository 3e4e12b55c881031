// Host helpers of wgrt.sample (sample.cpp; method and tolerances in sample.wgsl): the params tensor it reads.
// Thread: any (pure functions).
#pragma once
#include <array>
#include <cstdint>

namespace wgrt::ops {

constexpr int64_t kSampleParams = 16;       // params input: i32 [16]
constexpr int64_t kSampleWindowMax = 1024;  // longest repetition-penalty window the op takes

// The sampling fields of text::SamplerConfig (same ranges; checked by the op's resize hook, which fails with
// InvalidArgument naming the field).
struct SampleConfig {
  float temperature = 1.0f;  // > 0 (greedy is the argmax op, not this one)
  int32_t top_k = 0;         // 0 or >= vocab: off
  float top_p = 1.0f;        // (0, 1]; 1: off
  float min_p = 0.0f;        // [0, 1]; 0: off
  float repetition_penalty = 1.0f;  // > 0; 1: off (the window's live length is penalty_last_n)
  uint64_t seed = 0;
};

// The params tensor for one execute: `step` keys the random counter (row r draws with counter step + r).
std::array<int32_t, kSampleParams> sample_params(const SampleConfig& c, uint64_t step);

}  // namespace wgrt::ops
