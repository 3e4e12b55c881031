// libFuzzer: the sampler on arbitrary logits and configurations. Input layout: 16 config bytes
// (temperature, top_k, top_p, min_p, repetition penalty, penalty_last_n, seed), 1 byte history length, that
// many history bytes (ids), then the logits as raw f32 (NaN, inf and denormals included). Construction and
// sampling either succeed or throw InvalidArgument; a sampled id is inside the logits; the distribution's
// probabilities are finite, in [0, 1] and sum to 1 (1e-6).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <wgrt/error.h>

#include "text/sampler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 17) return 0;
  wgrt::text::SamplerConfig c;
  c.temperature = data[0] / 32.0f;   // 0 (greedy) .. ~8
  c.top_k = data[1] % 8;
  c.top_p = data[2] / 255.0f;        // 0 is out of range: must throw
  c.min_p = data[3] / 255.0f;
  c.repetition_penalty = data[4] / 64.0f;
  c.penalty_last_n = int8_t(data[5]);
  uint64_t seed = 0;
  std::memcpy(&seed, data + 6, 8);
  c.seed = seed;
  size_t pos = 16;
  const size_t hn = data[pos++];
  std::vector<int32_t> history;
  for (size_t i = 0; i < hn && pos < size; ++i) history.push_back(data[pos++]);
  std::vector<float> logits((size - pos) / 4);
  if (!logits.empty()) std::memcpy(logits.data(), data + pos, logits.size() * 4);
  try {
    wgrt::text::Sampler s(c);
    auto dist = s.distribution(logits, history);
    double total = 0;
    for (const auto& tp : dist) {
      if (!(tp.p >= 0 && tp.p <= 1) || tp.id < 0 || size_t(tp.id) >= logits.size()) std::abort();
      total += tp.p;
    }
    if (std::fabs(total - 1.0) > 1e-6) std::abort();
    const int32_t id = s.sample(logits, history);
    if (id < 0 || size_t(id) >= logits.size()) std::abort();
  } catch (const wgrt::InvalidArgument&) {
  }
  return 0;
}
