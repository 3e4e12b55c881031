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

#include "wgrt/llm.h"

namespace wgrt::models {

struct BatchRow {
  int32_t token = 0;  // vocabulary id
  int slot = 0;       // 0..slots()-1
  int pos = 0;        // 0..context()-1; rows of one slot in one step: consecutive positions, ascending
};

struct StepOutput {
  std::vector<int32_t> argmax;  // [outputs]: argmax of each wanted row's logits (-1: a NaN or infinite logit)
  std::vector<float> logits;    // [outputs, vocab] f32 when want_logits, else empty
};

class BatchLlm : public Llm {
 public:
  // opts as Llm::load (max_prefill: rows per step, default the device's prefill chunk capped by the context);
  // slots >= 1. Throws what Llm::load throws; LimitError when N KV caches do not fit the device.
  static std::unique_ptr<BatchLlm> load(const LlmOptions& opts, int slots);

  virtual int slots() const = 0;
  virtual int max_rows() const = 0;  // rows per step (R)
  // Writes each row's keys/values at (slot, pos) and returns the outputs of rows out_rows (indices into rows,
  // at most slots() of them), in that order. Throws InvalidArgument (no rows, too many rows or outputs, an id
  // outside the vocabulary, a bad out_rows index), LimitError (slot or position out of range).
  virtual StepOutput step(std::span<const BatchRow> rows, std::span<const int> out_rows, bool want_logits) = 0;
};

}  // namespace wgrt::models
