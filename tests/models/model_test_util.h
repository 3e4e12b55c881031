// Shared helpers for the end-to-end model tests: the real stories260K files from ../shared and the CPU
// reference (tests/support/cpu_llama.h) as the second oracle.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "support/cpu_llama.h"
#include "support/paths.h"
#include "wgrt/llm.h"

namespace wgrt::test {

inline std::string stories(const std::string& f) { return shared_path("models/stories260K/" + f); }

inline LlmOptions stories_bin_options() {
  LlmOptions o;
  o.model = stories("stories260K.bin");
  o.tokenizer = stories("tok512.bin");
  return o;
}

// Whether Llm's default KV cache for this model is f16 (LlmOptions::cache_type "f16" where head_dim % 4 == 0):
// the CPU reference then rounds its cache the same way (CpuLlama f16_kv).
inline bool llm_kv_f16(const LlamaConfig& c) { return c.head_dim % 4 == 0; }

inline int argmax(const std::vector<float>& v) {
  return int(std::max_element(v.begin(), v.end()) - v.begin());
}

inline float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

}  // namespace wgrt::test
