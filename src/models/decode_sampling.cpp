// DecodeSampling (decode_sampling.h).
#include "models/decode_sampling.h"

#include <algorithm>
#include <vector>

#include "text/sampler.h"
#include "wgrt/llm.h"

namespace wgrt::models {

text::SamplerConfig sampler_config(const GenerateOptions& g) {
  text::SamplerConfig sc;
  sc.temperature = g.temperature;
  sc.top_k = g.top_k;
  sc.top_p = g.top_p;
  sc.min_p = g.min_p;
  sc.repetition_penalty = g.repetition_penalty;
  sc.seed = g.seed;
  return sc;
}

DecodeSampling::DecodeSampling(ExecutableGraph& exe, const SampleIds& ids)
    : exe_(exe), params_(ids.params), window_(ids.window), sampled_(ids.sampled), window_out_(ids.window_out) {
  set(nullptr);
}

void DecodeSampling::set(const GenerateOptions* g) {
  if (!available()) return;
  if (g && g->temperature > 0) {
    text::Sampler check(sampler_config(*g));  // the CPU sampler's range checks and messages
    config_ = ops::SampleConfig{.temperature = g->temperature, .top_k = g->top_k, .top_p = g->top_p,
                                .min_p = g->min_p, .repetition_penalty = g->repetition_penalty, .seed = g->seed};
  } else {
    config_.reset();
    const std::array<int32_t, ops::kSampleParams> off{};
    exe_.set_input(params_, {ops::kSampleParams}, std::span<const int32_t>(off));
    const std::vector<int32_t> empty(size_t(kLlamaSampleWindow), -1);
    exe_.set_input(window_, {kLlamaSampleWindow}, std::span<const int32_t>(empty));
  }
}

void DecodeSampling::write_params(int pos) {
  const auto p = ops::sample_params(*config_, uint64_t(pos));
  exe_.set_input(params_, {ops::kSampleParams}, std::span<const int32_t>(p));
}

void DecodeSampling::prepare(std::span<const int32_t> history, int pos) {
  if (!on()) return;
  write_params(pos);
  std::vector<int32_t> w(size_t(kLlamaSampleWindow), -1);
  const size_t n = std::min(history.size(), w.size());
  std::copy(history.end() - long(n), history.end(), w.end() - long(n));
  exe_.set_input(window_, {kLlamaSampleWindow}, std::span<const int32_t>(w));
}

void DecodeSampling::prepare_fed(int pos) {
  if (!on()) return;
  write_params(pos);
  exe_.feed_input(window_, {kLlamaSampleWindow}, window_out_);
}

}  // namespace wgrt::models
