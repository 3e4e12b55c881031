// wgrt::models::BatchLlm: one model with N sequence slots for serving. Each slot has its own KV-cache region
// (context() positions); one step() runs rows of several sequences together (decode rows of the running
// sequences and prefill chunks of new ones), through the serving-batch Llama graph (llama_graph.h,
// LlamaGraphOptions::slots): the linear layers see R rows at once (GEMV for R <= 8, GEMM above), RoPE and
// attention run per row at its own slot and position (wgrt.rope_rows, wgrt.sdpa_batched).
// It is also an Llm: eval/forward/generate use slot 0 (with prefix reuse, like the single-sequence Llm), so
// ChatSession and resolve_chat_template work on it and tests can compare it with a plain Llm.
// Threads: step(), eval() and forward() lock one mutex (calls run one at a time); the token queries read
// immutable state (as Llm).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ops/sampling/sampling.h"
#include "wgrt/llm.h"

namespace wgrt::models {

struct BatchRow {
  int32_t token = 0;  // vocabulary id
  int slot = 0;       // 0..slots()-1
  int pos = 0;        // 0..context()-1; rows of one slot in one step: consecutive positions, ascending
};

// One output row's seeded draw on the GPU (wgrt.sample in the serving-batch graph, per-row parameters).
struct RowSampling {
  bool on = false;            // false: the row is greedy (its token is StepOutput::argmax)
  ops::SampleConfig config;   // temperature > 0 etc. (ranges as text::SamplerConfig; the step throws otherwise)
  uint64_t step = 0;          // the Philox counter: the same (seed, step, logits) draw the same token in any batch
  std::span<const int32_t> history;  // the sequence so far; its last kLlamaSampleWindow ids are the penalty window
};

struct StepOutput {
  std::vector<int32_t> argmax;  // [outputs]: argmax of each wanted row's logits (-1: a NaN or infinite logit);
                                // empty when every output row was drawn on the GPU
  std::vector<float> logits;    // [outputs, vocab] f32 when want_logits, else empty
  std::vector<int32_t> sampled; // [outputs] when a row of `sampling` was on: the draw (-1: off row, or a NaN /
                                // infinite logit, or every logit -inf), else empty
};

class BatchLlm : public Llm {
 public:
  // opts as Llm::load (max_prefill: rows per step, default the device's prefill chunk capped by the context);
  // slots >= 1. Throws what Llm::load throws; LimitError when N KV caches do not fit the device.
  static std::unique_ptr<BatchLlm> load(const LlmOptions& opts, int slots);

  virtual int slots() const = 0;
  virtual int max_rows() const = 0;  // rows per step (R)
  // Writes each row's keys/values at (slot, pos) and returns the outputs of rows out_rows (indices into rows,
  // at most slots() of them), in that order. sampling: empty, or one entry per output row (its GPU draw; only
  // B token ids are read back when no logits are wanted). Throws InvalidArgument (no rows, too many rows or
  // outputs, an id outside the vocabulary, a bad out_rows index, a sampling list of another length or a
  // parameter out of range), LimitError (slot or position out of range).
  virtual StepOutput step(std::span<const BatchRow> rows, std::span<const int> out_rows, bool want_logits,
                          std::span<const RowSampling> sampling = {}) = 0;
  // Queues a GPU copy of slot `from`'s keys/values at positions [0, n) into slot `to` (every layer), ordered after
  // the steps so far and before the next: a sequence that shares a prompt prefix with another starts from its
  // cache instead of prefilling it (the n choices of one request). Throws LimitError (slot or n out of range)
  // and InvalidArgument (from == to).
  virtual void copy_prefix(int from, int to, int n) = 0;
  // Whether the device's policy draws on the GPU (Tuning::gpu_sampling, WGRT_GPU_SAMPLING; off on CPU
  // adapters, where reading the logits back costs nothing and the CPU sampler is faster).
  virtual bool gpu_sampling() const = 0;
  // Dispatches the last step() ran (those with workgroups at its row count; 0 before the first step).
  virtual size_t step_dispatches() const = 0;
  // With LlmOptions::profile: forgets the per-kernel GPU times so far (profile_report() then covers what follows).
  virtual void profile_reset() = 0;
};

}  // namespace wgrt::models
