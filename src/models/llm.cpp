// wgrt::Llm: model loading, prefill/decode on the GPU, generation loop (include/wgrt/llm.h).
#include "wgrt/llm.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>

#include "formats/gguf.h"
#include "formats/llama2c.h"
#include "graph/executable.h"
#include "models/llama_footprint.h"
#include "models/llama_graph.h"
#include "models/tokenizer_loader.h"
#include "text/sampler.h"
#include "text/utf8_stream.h"
#include "util/mapped_file.h"
#include "util/printable.h"
#include "webgpu/device.h"
#include "wgrt/error.h"

namespace wgrt {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// True for a GGUF file (magic "GGUF"); anything else is read as a llama2.c checkpoint, except a file named
// *.gguf (any case), which is reported as a GGUF file with the wrong magic.
bool is_gguf(const std::string& path) {
  require_regular_file(path, "model file");  // a FIFO would block the open below forever
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(fmt::format("cannot open model file '{}': {}", printable(path, 300), std::strerror(errno)));
  unsigned char magic[4] = {};
  f.read(reinterpret_cast<char*>(magic), 4);
  const auto got = size_t(f.gcount());
  if (got == 4 && std::memcmp(magic, "GGUF", 4) == 0) return true;
  std::string ext = path.size() >= 5 ? path.substr(path.size() - 5) : "";
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".gguf") {
    std::string what = got == 0 ? "the file is empty" : "it starts with";
    for (size_t i = 0; i < got; ++i) what += fmt::format(" {:02x}", magic[i]);
    if (got > 0 && got < 4) what += fmt::format(" (file has {} byte{})", got, got == 1 ? "" : "s");
    throw FormatError(fmt::format("GGUF file '{}': {}, expected the magic 'GGUF' (47 47 55 46); a llama2.c "
                                  "checkpoint must not be named .gguf",
                                  printable(path, 300), what));
  }
  return false;
}

class LlmImpl final : public Llm {
 public:
  explicit LlmImpl(const LlmOptions& o) {
    auto t0 = Clock::now();
    gguf_ = is_gguf(o.model);
    if (!o.tokenizer.empty()) require_regular_file(o.tokenizer, "tokenizer file");
    weights_ = gguf_ ? load_gguf_llama(o.model) : load_llama2c(o.model);
    if (o.check_weights) weights_.check_finite();
    webgpu::DeviceOptions d;
    d.adapter = o.adapter;
    dev_ = webgpu::Device::create(d);
    models::LlamaGraphOptions go;
    go.context = o.context > 0 ? o.context : std::min(weights_.config().context_length, 4096);
    go.max_prefill = o.max_prefill;
    go.weights = o.force_f32 ? models::WeightPolicy::F32 : models::WeightPolicy::Auto;
    if (go.context <= weights_.config().context_length) {  // else build_llama_graph names the bad context
      const WGPULimits& lim = dev_->limits();
      models::check_llama_fits(models::llama_footprint(weights_, go), lim.maxBufferSize,
                               lim.maxStorageBufferBindingSize, models::host_available_bytes());
    }
    tok_ = models::load_tokenizer(weights_, o.tokenizer);
    models::LlamaGraph lg = models::build_llama_graph(weights_, go);
    weights_.check_unchanged();  // the weights were read from the mapping: were they the file's?
    tokens_ = lg.tokens;
    pos_ = lg.input_pos;
    logits_ = lg.logits;
    next_ = lg.next_token;
    context_ = lg.context;
    max_prefill_ = lg.max_prefill;
    weight_bytes_ = lg.weight_bytes;
    exe_ = ExecutableGraph::build(std::move(lg.graph), *dev_);
    if (o.profile) exe_->enable_profiling(true);
    dev_->wait_idle();
    load_seconds_ = seconds_since(t0);
  }

  void run(const std::vector<int32_t>& tokens, int pos, const std::function<void(int, int)>& on_chunk = {}) {
    if (tokens.empty()) throw InvalidArgument("forward: no tokens");
    if (pos < 0 || pos + int(tokens.size()) > context_)
      throw LimitError(fmt::format("positions {}..{} do not fit the context of {} tokens", pos, pos + int(tokens.size()) - 1,
                                   context_));
    for (int32_t t : tokens)
      if (t < 0 || t >= vocab_size()) throw InvalidArgument(fmt::format("token id {} outside the vocabulary [0, {})", t, vocab_size()));
    for (size_t i = 0; i < tokens.size(); i += size_t(max_prefill_)) {
      size_t n = std::min(tokens.size() - i, size_t(max_prefill_));
      std::vector<int32_t> chunk(tokens.begin() + long(i), tokens.begin() + long(i + n));
      std::vector<int32_t> p = {pos + int32_t(i)};
      exe_->set_input(tokens_, {1, int64_t(n)}, std::span<const int32_t>(chunk));
      exe_->set_input(pos_, {1}, std::span<const int32_t>(p));
      exe_->execute();
      if (on_chunk && tokens.size() > size_t(max_prefill_)) {
        dev_->wait_idle();
        on_chunk(int(i + n), int(tokens.size()));
      }
    }
  }

  std::vector<float> forward(const std::vector<int32_t>& tokens, int pos) override {
    std::lock_guard<std::mutex> lock(mu_);
    run(tokens, pos);
    return exe_->read_f32(logits_);
  }

  // The next token from the logits just computed; `step` (0-based) and `pos` name it if they are not finite.
  int32_t pick(text::Sampler* sampler, const std::vector<int32_t>& history, int step, int pos) {
    bool bad = false;
    int32_t tok = -1;
    if (!sampler) {
      tok = exe_->read_i32(next_).at(0);  // wgrt.argmax_checked: -1 when a logit is NaN or infinite
      bad = tok < 0;
    } else {
      std::vector<float> logits = exe_->read_f32(logits_);
      bad = std::any_of(logits.begin(), logits.end(), [](float v) { return !std::isfinite(v); });
      if (!bad) tok = sampler->sample(logits, history);
    }
    if (bad)
      throw NumericError(fmt::format("the model produced NaN or infinite logits at generated token {} (position {}); "
                                     "its weights may hold NaN/Inf values (wgrt generate --check-weights scans them)",
                                     step, pos));
    return tok;
  }

  GenerateStats generate(std::string_view prompt, const GenerateOptions& g,
                         const std::function<void(std::string_view)>& on_text) override {
    std::lock_guard<std::mutex> lock(mu_);
    GenerateStats st;
    std::vector<int32_t> ids = tokenize(prompt, g.add_bos);
    if (ids.empty()) throw InvalidArgument("the prompt is empty and no BOS token was added: nothing to start from");
    // Context rule (llm.h): a prompt of n <= C tokens can be followed by up to C - n + 1 new tokens (the last
    // one is never fed back, so it needs no cache slot); a prompt of exactly C tokens gives one token.
    if (int(ids.size()) > context_)
      throw LimitError(fmt::format("the prompt has {} tokens but the context holds {}: shorten the prompt or raise "
                                   "--ctx", ids.size(), context_));
    if (g.max_tokens < 0) throw InvalidArgument("max_tokens must be >= 0");
    if (!std::isfinite(g.temperature) || g.temperature < 0) throw InvalidArgument("temperature must be a finite number >= 0");
    if (!std::isfinite(g.repetition_penalty) || g.repetition_penalty <= 0)
      throw InvalidArgument("repetition_penalty must be a finite number > 0");
    std::unique_ptr<text::Sampler> sampler;
    if (g.temperature > 0) {
      text::SamplerConfig sc;
      sc.temperature = g.temperature;
      sc.top_k = g.top_k;
      sc.top_p = g.top_p;
      sc.min_p = g.min_p;
      sc.repetition_penalty = g.repetition_penalty;
      sc.seed = g.seed;
      sampler = std::make_unique<text::Sampler>(sc);
    } else if (g.repetition_penalty != 1.0f) {
      throw InvalidArgument("repetition_penalty needs sampling (temperature > 0)");
    }
    st.prompt_tokens = int(ids.size());
    std::vector<int32_t> history = ids;
    auto t0 = Clock::now();
    run(ids, 0, g.on_prefill);
    int pos = int(ids.size());
    int32_t next = g.max_tokens > 0 ? pick(sampler.get(), history, 0, pos - 1) : -1;
    st.prefill_seconds = seconds_since(t0);
    text::Utf8Stream utf8;
    int32_t prev = ids.back();
    auto t1 = Clock::now();
    st.stop_reason = "max_tokens";
    for (int i = 0; i < g.max_tokens; ++i) {
      int32_t tok = next;
      if (tok == tok_->eos_id() || (!gguf_ && tok == tok_->bos_id())) {
        st.stop_reason = "eos";
        break;
      }
      st.tokens.push_back(tok);
      history.push_back(tok);
      ++st.generated_tokens;
      std::string text = utf8.push(tok_->decode_piece(prev, tok));
      if (!text.empty()) on_text(text);
      prev = tok;
      if (i + 1 == g.max_tokens) break;
      if (pos >= context_) {
        st.stop_reason = "context";
        break;
      }
      run({tok}, pos);
      ++pos;
      next = pick(sampler.get(), history, i + 1, pos - 1);
    }
    std::string tail = utf8.flush();
    if (!tail.empty()) on_text(tail);
    st.decode_seconds = seconds_since(t1);
    return st;
  }

  std::vector<int32_t> tokenize(std::string_view text, bool add_bos) const override { return tok_->encode(text, add_bos); }
  std::string detokenize(const std::vector<int32_t>& ids) const override { return tok_->decode(ids); }
  int context() const override { return context_; }
  int vocab_size() const override { return weights_.config().vocab_size; }
  double load_seconds() const override { return load_seconds_; }
  uint64_t gpu_bytes() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return dev_->allocated_bytes();
  }

  std::string description() const override {
    const LlamaConfig& c = weights_.config();
    return fmt::format("{} dim {} layers {} heads {}/{} (head dim {}) ffn {} vocab {} | context {} | weights {:.1f} MiB | {}",
                       c.arch, c.dim, c.n_layers, c.n_heads, c.n_kv_heads, c.head_dim, c.hidden_dim, c.vocab_size,
                       context_, double(weight_bytes_) / 1048576.0, dev_->adapter_info().summary());
  }
  std::string profile_report() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return exe_->profiler() ? exe_->profiler()->table() : "";
  }
  std::string graph_dump() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return exe_->dump();
  }
  std::string profile_trace() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return exe_->profiler() ? exe_->profiler()->chrome_trace() : "";
  }

 private:
  // Serializes every call that touches the device or the executable (generate, forward, profile and
  // graph queries): one Llm is safe to share between threads, calls run one at a time (llm.h).
  mutable std::mutex mu_;
  bool gguf_ = false;
  WeightSource weights_;
  std::unique_ptr<text::Tokenizer> tok_;
  std::unique_ptr<webgpu::Device> dev_;
  std::unique_ptr<ExecutableGraph> exe_;
  ValueId tokens_ = -1, pos_ = -1, logits_ = -1, next_ = -1;
  int context_ = 0, max_prefill_ = 0;
  uint64_t weight_bytes_ = 0;
  double load_seconds_ = 0;
};

}  // namespace

std::unique_ptr<Llm> Llm::load(const LlmOptions& opts) { return std::make_unique<LlmImpl>(opts); }

}  // namespace wgrt
