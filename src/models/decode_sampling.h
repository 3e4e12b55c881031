// The host side of the Llama graph's GPU draw (wgrt.sample, src/ops/sampling; llama_graph.h: sample_params,
// sample_window): which output a step yields (the argmax or the draw) and the params and penalty window each
// execute reads. Used by Llm (llm.cpp) under its lock: one thread at a time.
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include "graph/executable.h"
#include "models/llama_graph.h"
#include "ops/sampling/sampling.h"

namespace wgrt {
struct GenerateOptions;
}

namespace wgrt::text {
struct SamplerConfig;
}

namespace wgrt::models {

// The text::Sampler configuration of g's sampling fields (penalty window: the sampler's default, 64).
text::SamplerConfig sampler_config(const GenerateOptions& g);

// LlamaGraph's sampling values (-1 in serving graphs).
struct SampleIds {
  ValueId params = -1, window = -1, sampled = -1, window_out = -1;
};

class DecodeSampling {
 public:
  // Takes the graph's sampling ids (absent: available() false) and turns the draw off.
  DecodeSampling(ExecutableGraph& exe, const SampleIds& ids);
  bool available() const { return params_ >= 0; }
  // g with temperature > 0: on (ranges checked as text::Sampler does: InvalidArgument); null or greedy: off.
  void set(const GenerateOptions* g);
  bool on() const { return config_.has_value(); }
  // Before an execute whose draw is for the token after position pos: the penalty window is the last 64 of
  // `history` (the tokens at positions 0..pos), or with fed the previous step's window_out, on the GPU.
  void prepare(std::span<const int32_t> history, int pos);
  void prepare_fed(int pos);
  // The output a step yields: the draw when on, else `argmax`.
  ValueId result(ValueId argmax) const { return on() ? sampled_ : argmax; }

 private:
  void write_params(int pos);
  ExecutableGraph& exe_;
  ValueId params_ = -1, window_ = -1, sampled_ = -1, window_out_ = -1;
  std::optional<ops::SampleConfig> config_;
};

}  // namespace wgrt::models
