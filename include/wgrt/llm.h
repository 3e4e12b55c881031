// wgrt's public LLM API: load a Llama-family model file, tokenize, prefill and decode on the GPU with a
// KV cache, stream text.
//
//   auto llm = wgrt::Llm::load({.model = "stories260K.bin", .tokenizer = "tok512.bin"});
//   llm->generate("Once upon a time", {.max_tokens = 60}, [](std::string_view s) { fputs(...); });
//
// Model files: GGUF v2/v3 (architectures llama, qwen2, qwen3; tensor types F32, F16, BF16, Q8_0, Q4_0 — Q4_0
// stays 4-bit on the GPU) and llama2.c checkpoints (`.bin`, with the llama2.c tokenizer file).
// Errors: FormatError (bad or truncated file, a *.gguf file without the GGUF magic, tokenizer that does not
// fit the model, a model file that is not a regular file or that changed while it was loading, tensors the
// metadata does not account for), Unsupported (tensor type, architecture), InvalidArgument (bad options, empty
// prompt without BOS), LimitError (prompt longer than the context; a weight, KV cache or RoPE table larger
// than the adapter's largest storage buffer, or converted weights larger than the host's available memory:
// checked from shapes before anything is allocated), NumericError (NaN or infinite logits: the message names
// the generated token and position), GpuError (no adapter, device lost, GPU wait timed out).
// docs/RELIABILITY.md lists these promises and the tests behind them.
//
// Threads: an Llm may be shared between threads. generate(), forward() and the profile/graph queries lock
// one mutex per Llm, so concurrent calls run one after the other (each generate() is a whole sequence; a
// second thread waits until the first returns). tokenize(), detokenize(), context(), vocab_size(),
// load_seconds() and description() only read immutable state and run concurrently. on_text and on_prefill
// run on the calling thread with the lock held: they must not call back into the same Llm (deadlock).
// Distinct Llm objects are independent (each has its own WebGPU device) and may run in parallel.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt {

struct LlmOptions {
  std::string model;            // .gguf or llama2.c .bin
  std::string tokenizer;        // llama2.c tokenizer file (required for .bin; GGUF embeds its vocabulary)
  std::string adapter;          // adapter spec (see `wgrt info --help`); empty: WGRT_ADAPTER or the best
  int context = 0;              // KV-cache length in tokens (0: the model's context length, capped at 4096)
  int max_prefill = 0;          // tokens per prefill execute (0: min(context, 512)); longer prompts are chunked
  bool force_f32 = false;       // dequantize 4-bit weights to f32
  bool profile = false;         // GPU timestamp profiling (needs timestamp-query)
  bool check_weights = false;   // scan every weight for NaN/Inf before building (FormatError naming the tensor)
};

struct GenerateOptions {
  int max_tokens = 128;         // new tokens to generate
  float temperature = 0.0f;     // 0: greedy (argmax on the GPU, one int read back)
  int top_k = 0;                // 0: off
  float top_p = 1.0f;           // 1: off
  float min_p = 0.0f;           // 0: off
  float repetition_penalty = 1.0f;
  uint64_t seed = 0;
  bool add_bos = true;
  // Called after each prefill chunk of a prompt longer than one chunk (LlmOptions::max_prefill) with the prompt
  // tokens done so far and the total, once the GPU has finished that chunk; not called for a one-chunk prompt.
  std::function<void(int done, int total)> on_prefill;
};

struct GenerateStats {
  int prompt_tokens = 0, generated_tokens = 0;
  double prefill_seconds = 0, decode_seconds = 0;
  std::string stop_reason;      // "eos", "max_tokens", "context"
  std::vector<int32_t> tokens;  // generated token ids
  double prefill_tok_s() const { return prefill_seconds > 0 ? prompt_tokens / prefill_seconds : 0; }
  double decode_tok_s() const { return decode_seconds > 0 ? generated_tokens / decode_seconds : 0; }
};

class Llm {
 public:
  static std::unique_ptr<Llm> load(const LlmOptions& opts);
  virtual ~Llm() = default;

  // Generates from `prompt` (an empty prompt starts from BOS alone), calling on_text with each complete
  // UTF-8 piece as it is produced. Starts a fresh sequence (position 0) every call.
  // Context rule: a prompt of n tokens (BOS included) needs n <= context(); it can be followed by at most
  // context() - n + 1 new tokens (the last new token is never fed back, so it needs no KV-cache slot): a
  // prompt of exactly context() tokens yields one token, then stop_reason "context". n > context() is a
  // LimitError.
  virtual GenerateStats generate(std::string_view prompt, const GenerateOptions& g,
                                 const std::function<void(std::string_view)>& on_text) = 0;

  // Low level: runs `tokens` at positions [pos, pos + n) and returns the logits of the last one.
  virtual std::vector<float> forward(const std::vector<int32_t>& tokens, int pos) = 0;
  virtual std::vector<int32_t> tokenize(std::string_view text, bool add_bos) const = 0;
  virtual std::string detokenize(const std::vector<int32_t>& ids) const = 0;

  virtual int context() const = 0;
  virtual int vocab_size() const = 0;
  virtual double load_seconds() const = 0;
  virtual uint64_t gpu_bytes() const = 0;       // GPU memory allocated by this model
  virtual std::string description() const = 0; // architecture, sizes, weight types, adapter
  virtual std::string profile_report() const = 0;  // per-kernel table ("" when profiling is off)
  virtual std::string profile_trace() const = 0;   // Chrome trace JSON ("" when profiling is off)
  virtual std::string graph_dump() const = 0;      // values, nodes, dispatches, memory plan (debugging)
};

}  // namespace wgrt
