// wgrt's public LLM API: load a Llama-family model file, tokenize, prefill and decode on the GPU with a
// KV cache, stream text.
//
//   auto llm = wgrt::Llm::load({.model = "stories260K.bin", .tokenizer = "tok512.bin"});
//   llm->generate("Once upon a time", {.max_tokens = 60}, [](std::string_view s) { fputs(...); });
//
// Conversations: ChatSession (end of this file) renders the chat with the model's template and keeps the KV
// cache across turns.
//
// Model files (kind decided by content, not name): GGUF v2/v3 (architectures llama, qwen2, qwen3; tensor
// types F32, F16, BF16, Q8_0, Q4_0 — Q4_0 stays 4-bit on the GPU) and llama2.c checkpoints (`.bin`, with the
// llama2.c tokenizer file).
// Errors: FormatError (bad or truncated file, a *.gguf file without the GGUF magic, a file that is neither
// GGUF nor a valid llama2.c checkpoint, tokenizer that does not fit the model, a model file that is not a
// regular file or that changed while it was loading, tensors the metadata does not account for), Unsupported
// (tensor type, architecture), InvalidArgument (bad options, empty prompt without BOS), LimitError (prompt
// longer than the context; a weight, KV cache or RoPE table larger than the adapter's largest storage buffer,
// or converted weights larger than the host's available memory: checked from shapes before anything is
// allocated), NumericError (NaN or infinite logits: the message names the generated token and position),
// GpuError (no adapter, device lost, GPU wait timed out).
// docs/RELIABILITY.md lists these promises and the tests behind them.
//
// Threads: see the contract above class Llm.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt {

struct LlmOptions {
  std::string model;            // .gguf or llama2.c .bin
  std::string tokenizer;        // llama2.c tokenizer file (required for .bin; GGUF embeds its vocabulary)
  std::string adapter;          // adapter spec (see `wgrt info --help`); empty: WGRT_ADAPTER or the best
  int context = 0;              // KV-cache length in tokens (0: the model's context length, capped at 4096)
  int max_prefill = 0;          // tokens per prefill execute (0: the device's tuning policy, 2048 on GPUs and 512
                                // on CPU adapters, capped by the context and halved, not below 512, until the
                                // prefill activations fit one binding; more is capped by the context too); longer
                                // prompts are chunked
  bool force_f32 = false;       // dequantize 4-bit weights to f32
  bool profile = false;         // GPU timestamp profiling (needs timestamp-query)
  bool check_weights = false;   // scan every weight for NaN/Inf before building (FormatError naming the tensor)
  // KV-cache element type: "f16" (IEEE binary16: half the cache memory and half the attention's cache reads;
  // llama.cpp's default; a model whose head dim is not a multiple of 4 gets f32) or "f32". Another value throws
  // InvalidArgument at load.
  std::string cache_type = "f16";
};

struct GenerateOptions {
  int max_tokens = 128;         // new tokens to generate; -1: until an end token, a stop string or the context end
  float temperature = 0.0f;     // 0: greedy (argmax on the GPU, one int read back)
  int top_k = 0;                // 0: off
  float top_p = 1.0f;           // 1: off
  float min_p = 0.0f;           // 0: off
  float repetition_penalty = 1.0f;
  uint64_t seed = 0;
  bool add_bos = true;          // generate(): put BOS before the prompt (ignored by generate_tokens)
  // Stop strings, matched on the decoded text across token boundaries (text/stop_strings.h): generation ends
  // at the first occurrence of any of them, and the text passed to on_text ends just before it.
  std::vector<std::string> stop;
  // When not null, polled before each token and between prefill chunks: once it reads true, generation ends
  // ("cancelled"). Meant to be set from another thread or a signal handler (e.g. Ctrl-C).
  const std::atomic<bool>* cancel = nullptr;
  // Called after each prefill chunk of a prompt longer than one chunk (LlmOptions::max_prefill) with the prompt
  // tokens done so far and the total, once the GPU has finished that chunk; not called for a one-chunk prompt.
  std::function<void(int done, int total)> on_prefill;
};

struct GenerateStats {
  int prompt_tokens = 0;        // prompt tokens prefilled by this call (not counting cached_tokens)
  int cached_tokens = 0;        // prompt tokens whose keys/values were already in the KV cache (reused)
  int generated_tokens = 0;
  double prefill_seconds = 0, decode_seconds = 0;
  // "eos" (an end token: SpecialTokens::end_of_turn), "stop" (a stop string), "max_tokens", "context" (the KV
  // cache is full), "cancelled" (GenerateOptions::cancel).
  std::string stop_reason;
  std::string stop_string;      // the stop string that matched (stop_reason "stop")
  std::vector<int32_t> tokens;  // generated token ids (the end token that stopped generation is not included)
  std::string text;             // the generated text as passed to on_text (valid UTF-8, ends before a stop string)
  double prefill_tok_s() const { return prefill_seconds > 0 ? prompt_tokens / prefill_seconds : 0; }
  double decode_tok_s() const { return decode_seconds > 0 ? generated_tokens / decode_seconds : 0; }
};

// The special tokens and chat template of a model (GGUF tokenizer metadata; llama2.c: BOS 1, EOS 2, none).
struct SpecialTokens {
  int32_t bos = -1, eos = -1;       // tokenizer.ggml.bos_token_id / eos_token_id; -1: none
  std::string bos_text, eos_text;   // their vocabulary text (e.g. "<s>", "<|im_end|>"); "" when none
  bool add_bos = true;              // tokenizer.ggml.add_bos_token (llama2.c: true)
  // Token ids that end a reply (generation stops there), sorted, unique: eos; tokenizer.ggml.eot_token_id and
  // eom_token_id; every control or user-defined token whose text is <|im_end|>, <|eot_id|>, <|eom_id|>,
  // <end_of_turn>, <|end|> or <|endoftext|>; for llama2.c checkpoints also BOS (run.c stops there).
  std::vector<int32_t> end_of_turn;
  std::string chat_template;        // tokenizer.chat_template (Jinja2 source); "" when the file has none
};

// Options of Llm::eval.
struct EvalOptions {
  bool reuse_cache = true;          // false: run every token of the sequence again
  bool want_logits = false;         // also read back the last position's logits (else only their argmax)
  const std::atomic<bool>* cancel = nullptr;                 // checked between prefill chunks
  std::function<void(int done, int total)> on_prefill;       // as GenerateOptions::on_prefill
};

struct EvalResult {
  int reused = 0;                   // leading tokens whose keys/values were already cached (not run again)
  int32_t argmax = -1;              // argmax of the last position's logits (lowest id on ties), or with
                                    // set_sampling on (and no want_logits) the GPU draw; -1 if cancelled
  std::vector<float> logits;        // [vocab] f32, when want_logits and not cancelled
  bool cancelled = false;           // stopped between prefill chunks: the cache holds the chunks done
};

// Threads: an Llm may be shared between threads. Its calls are serialized internally: eval(), forward(),
// gpu_bytes() and the profile/graph queries lock one mutex per Llm, so concurrent calls run one after the
// other. generate() and generate_tokens() take no lock of their own: they call eval() once per step, so two
// threads generating on one Llm interleave step by step; each stays correct (eval reuses only the cached
// prefix that matches its own sequence, re-prefilling after the other's tokens) but both run slower, so a
// server runs one Llm per concurrent sequence or serializes them. Greedy generation with the GPU-resident
// loop (decode_submit) is the exception: it holds exclusive() from its first decode step to its last, so
// other threads' eval/forward/decode_*/generate calls wait until it ends (gpu_bytes() and the queries do not);
// its on_text then runs with that lock held and must not call eval/forward/decode_* (tokenize etc. are fine). tokenize(), detokenize(), token_piece(),
// special_tokens(), context(), vocab_size(), load_seconds() and description() only read immutable state.
// on_text runs on the calling thread without the lock; EvalOptions::on_prefill runs with it held and must not
// call back into the same Llm (deadlock). A ChatSession, and all the ChatSessions of one Llm (they share its
// KV cache), are used from one thread at a time. Distinct Llm objects are independent (each has its own
// WebGPU device) and may run in parallel.
class Llm {
 public:
  static std::unique_ptr<Llm> load(const LlmOptions& opts);
  virtual ~Llm() = default;

  // Generates from `prompt` (an empty prompt starts from BOS alone), calling on_text with each complete
  // UTF-8 piece as it is produced. Prefills the whole prompt every call (no cache reuse: timings stay honest).
  // Context rule: a prompt of n tokens (BOS included) needs n <= context(); it can be followed by at most
  // context() - n + 1 new tokens (the last new token is never fed back, so it needs no KV-cache slot): a
  // prompt of exactly context() tokens yields one token, then stop_reason "context".
  // Stops at SpecialTokens::end_of_turn, a stop string, max_tokens, the context end or cancel.
  // Throws InvalidArgument (bad options, empty sequence), LimitError (n > context()),
  // NumericError (NaN or infinite logits).
  GenerateStats generate(std::string_view prompt, const GenerateOptions& g,
                         const std::function<void(std::string_view)>& on_text);
  // Continues the token sequence `seq` (prompt ids, BOS included if wanted), reusing the KV cache for the
  // longest prefix of `seq` it holds (eval). The building block of ChatSession and of servers.
  GenerateStats generate_tokens(std::vector<int32_t> seq, const GenerateOptions& g,
                                const std::function<void(std::string_view)>& on_text, bool reuse_cache = true);

  // Low level: makes the KV cache hold `seq` at positions [0, n) and returns the output for its last token.
  // Only the tokens after the longest prefix of `seq` already in the cache (from any earlier call on this Llm)
  // are run, in prefill chunks of LlmOptions::max_prefill; when the cache already holds all of `seq` its last
  // token is run again (for its logits). Throws InvalidArgument (empty seq, id outside the vocabulary),
  // LimitError (seq longer than the context).
  virtual EvalResult eval(std::span<const int32_t> seq, const EvalOptions& o) = 0;
  // Low level: runs `tokens` at positions [pos, pos + n) and returns the logits of the last one. The cache
  // entries before pos are whatever earlier calls left there.
  virtual std::vector<float> forward(const std::vector<int32_t>& tokens, int pos) = 0;

  // Low level, the GPU-resident greedy decode loop (generate_tokens uses it for greedy decoding unless the
  // device's tuning turns decode_pipeline off; WGRT_DECODE_PIPELINE=0). decode_submit runs one token at
  // position `pos` (0 <= pos < context()) and returns without waiting for the GPU: `token` >= 0 is the
  // caller's; token == -1 takes, on the GPU, the argmax of the last step or eval that ran (no host round trip).
  // Every step queues the read-back of its own argmax; decode_take waits for the oldest one and returns it
  // (-1 when that step's logits held NaN or infinite values). So the CPU records step N+1 while the GPU runs
  // step N. The KV-cache record that eval reuses follows as the tokens become known. decode_pending: steps
  // submitted and not yet taken. Throws InvalidArgument (token outside the vocabulary, decode_take with none
  // pending), LimitError (position outside the context), GpuError. Threads: as eval (one call at a time).
  virtual void decode_submit(int32_t token, int pos) = 0;
  virtual int32_t decode_take() = 0;
  virtual int decode_pending() const = 0;
  virtual bool decode_pipelined() const = 0;  // the device's Tuning::decode_pipeline
  // Low level, sampling on the GPU (wgrt.sample, src/ops/sampling: text::Sampler's order of operations,
  // repetition penalty over the last 64 tokens, Philox keyed by GenerateOptions::seed and the position).
  // set_sampling(&g) with g.temperature > 0: until set_sampling(nullptr), eval without want_logits returns the
  // seeded draw for the token after seq in EvalResult::argmax, and decode_submit/decode_take draw instead of
  // taking the argmax (token == -1 feeds the previous draw and its penalty window on the GPU). The draw that
  // follows position p uses counter p, so the same seed, prompt and options give the same tokens, pipelined or
  // not. Returns false, changing nothing, when the model cannot (gpu_sampling() false). The state is the Llm's:
  // hold exclusive() from set_sampling(&g) to set_sampling(nullptr) on a shared Llm. Throws InvalidArgument
  // for options outside text::Sampler's ranges.
  virtual bool set_sampling(const GenerateOptions* g) {
    (void)g;
    return false;
  }
  // The device's Tuning::gpu_sampling and a single-sequence model (generate_tokens then samples on the GPU).
  virtual bool gpu_sampling() const { return false; }
  // Holds off the eval/forward/decode_* calls of other threads while the returned lock lives (recursive: the
  // holder's own calls go through). A sequence of decode_submit/decode_take on a shared Llm is made under it.
  virtual std::unique_lock<std::recursive_mutex> exclusive() = 0;
  virtual std::vector<int32_t> tokenize(std::string_view text, bool add_bos) const = 0;
  virtual std::string detokenize(const std::vector<int32_t>& ids) const = 0;
  // The bytes to print for token `id` after `prev` (-1 at the start): "" for control tokens, the leading space
  // dropped after BOS where the tokenizer adds one. Not necessarily whole UTF-8 characters. Throws
  // InvalidArgument for an id (or prev other than -1) outside the vocabulary.
  virtual std::string token_piece(int32_t prev, int32_t id) const = 0;
  virtual const SpecialTokens& special_tokens() const = 0;

  virtual int context() const = 0;
  virtual int vocab_size() const = 0;
  virtual double load_seconds() const = 0;
  virtual uint64_t gpu_bytes() const = 0;       // GPU memory allocated by this model
  virtual std::string description() const = 0; // architecture, sizes, weight types, adapter
  virtual std::string profile_report() const = 0;  // per-kernel table ("" when profiling is off)
  virtual std::string profile_trace() const = 0;   // Chrome trace JSON ("" when profiling is off)
  virtual std::string graph_dump() const = 0;      // values, nodes, dispatches, memory plan (debugging)
};

// ---- Conversations ----

// One message of a conversation, as Hugging Face chat templates take it. role: "system", "user", "assistant".
struct ChatMessage {
  std::string role, content;
};

// A chat template: Jinja2 source (rendered by src/text/chat_template.h, like HF apply_chat_template), where it
// came from, and extra stop strings (a built-in template's end-of-turn marker, for vocabularies where that
// marker is plain text rather than one token).
struct ChatTemplateSource {
  std::string name;    // "model" (tokenizer.chat_template), a built-in name, or the file path
  std::string origin;  // for people: "the model's tokenizer.chat_template", "built-in 'chatml' (the model has none)"
  std::string source;
  std::vector<std::string> stop;
};

// Names of the built-in templates: chatml, llama2, llama3, gemma, phi3.
std::vector<std::string> builtin_chat_templates();
// The template for --chat-template FILE|NAME. "" : the model's tokenizer.chat_template, or when the model has
// none the built-in "chatml" (llama.cpp's fallback too). Otherwise an existing file (read whole; at most
// 1 MiB), else a built-in name. Throws InvalidArgument naming the built-ins for anything else, FormatError for
// an unreadable file.
ChatTemplateSource resolve_chat_template(const Llm& llm, const std::string& file_or_name);

// What a session does when the rendered conversation leaves no room in the context for the reply.
enum class ContextOverflow {
  Error,       // throw LimitError; the new user message is taken back, the session stays usable
  DropOldest,  // drop the oldest user/assistant exchanges (the system prompt stays) until it fits; the changed
               // start of the conversation means it is prefilled again in full on that turn
};

struct ChatOptions {
  std::string system;                // system prompt ("" : none)
  ChatTemplateSource chat_template;  // empty source: resolve_chat_template(llm, chat_template.name)
  ContextOverflow overflow = ContextOverflow::Error;
};

// A multi-turn conversation with one Llm. Each turn renders the whole conversation with the chat template
// (add_generation_prompt, bos_token/eos_token from SpecialTokens), tokenizes it (special-token text becomes
// its token; BOS put first when the vocabulary asks for it and the text does not already start with it) and
// continues it with Llm::generate_tokens, so only the tokens after what the KV cache already holds are
// prefilled: normally the new turn alone. The reply ends at an end-of-turn token (SpecialTokens::end_of_turn),
// a stop string (the template's and GenerateOptions::stop), max_tokens, the context end or cancel; its text
// (ending before any stop string, partial when cancelled) becomes the assistant message.
// The Llm must outlive the session. Threads: one thread at a time, with the other sessions of the same Llm
// (see Llm).
class ChatSession {
 public:
  // Throws FormatError for a template with a syntax error.
  explicit ChatSession(Llm& llm, ChatOptions o = {});
  ~ChatSession();
  ChatSession(ChatSession&&) noexcept;
  ChatSession& operator=(ChatSession&&) noexcept;

  // Adds `user` as a user message and generates the assistant's reply (see class comment). Throws what
  // reply() throws.
  GenerateStats say(std::string_view user, const GenerateOptions& g,
                    const std::function<void(std::string_view)>& on_text);
  // Generates the assistant's reply to the messages so far. Throws LimitError on overflow (see
  // ContextOverflow), InvalidArgument / FormatError from the template (raise_exception, runtime errors).
  GenerateStats reply(const GenerateOptions& g, const std::function<void(std::string_view)>& on_text);

  // Appends a message (no check of the role: the template decides what it accepts).
  void add(std::string role, std::string content);
  // Forgets every message but the system prompt.
  void clear();
  const std::vector<ChatMessage>& messages() const;
  // The messages rendered with the generation prompt, and its tokens (what reply() continues). Throw the
  // template's errors (as reply()).
  std::string prompt_text() const;
  std::vector<int32_t> prompt_tokens() const;
  // Prefills prompt_tokens() (only what the cache lacks) and returns the last position's output (logits [vocab]
  // f32 when want_logits): for tests and for servers that sample themselves. Overflow as reply().
  EvalResult prefill(bool want_logits);
  const ChatTemplateSource& chat_template() const;
  int dropped_messages() const;      // messages dropped so far by ContextOverflow::DropOldest

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wgrt
