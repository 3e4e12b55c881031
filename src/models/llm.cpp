// wgrt::Llm: model loading, prefill/decode on the GPU, generation loop (include/wgrt/llm.h).
#include "wgrt/llm.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>

#include "formats/gguf.h"
#include "formats/llama2c.h"
#include "formats/model_file_kind.h"
#include "graph/executable.h"
#include "models/decode_sampling.h"
#include "models/llama_footprint.h"
#include "models/llama_graph.h"
#include "models/special_tokens.h"
#include "models/tokenizer_loader.h"
#include "util/mapped_file.h"
#include "webgpu/device.h"
#include "wgrt/error.h"

namespace wgrt {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

class LlmImpl final : public Llm {
 public:
  explicit LlmImpl(const LlmOptions& o) {
    auto t0 = Clock::now();
    gguf_ = model_file_kind(o.model) == ModelFileKind::Gguf;  // refuses a FIFO or other non-regular file
    if (!o.tokenizer.empty()) require_regular_file(o.tokenizer, "tokenizer file");
    if (gguf_) {
      weights_ = load_gguf_llama(o.model);
    } else {
      try {
        weights_ = load_llama2c(o.model);
      } catch (const FormatError& e) {
        throw FormatError(not_a_model_message(o.model, e.what()));
      }
    }
    if (o.check_weights) weights_.check_finite();
    webgpu::DeviceOptions d;
    d.adapter = o.adapter;
    dev_ = webgpu::Device::create(d);
    models::LlamaGraphOptions go;
    // The one place the size defaults are resolved (the graph builder takes final values): the model's context
    // capped at 4096, and the device policy's prefill chunk capped by it.
    const int model_ctx = weights_.config().context_length;
    if (o.context <= 0 && model_ctx <= 0) throw InvalidArgument("the model declares no context length: pass a context size");
    go.context = o.context > 0 ? o.context : std::min(model_ctx, 4096);
    go.max_prefill = o.max_prefill > 0 ? std::min(o.max_prefill, go.context)
                                       : models::default_prefill_chunk(weights_, go, dev_->tuning().prefill_chunk,
                                                                       dev_->limits().maxStorageBufferBindingSize);
    go.weights = o.force_f32 ? models::WeightPolicy::F32 : models::WeightPolicy::Auto;
    go.fuse = dev_->tuning().fused_gemv;  // the fused layer body (WGRT_FUSED_GEMV=0: the separate ops, for A/B)
    go.fuse_qkv = dev_->tuning().fused_qkv;  // stacked q/k/v + wgrt.rope_qkv_cache (WGRT_FUSED_QKV=0: off)
    go.kv_type = models::kv_cache_option(o.cache_type);
    if (go.context <= model_ctx) {  // else build_llama_graph names the bad context
      const WGPULimits& lim = dev_->limits();
      const webgpu::AdapterInfo& ai = dev_->adapter_info();
      models::check_llama_fits(models::llama_footprint(weights_, go), lim.maxBufferSize,
                               lim.maxStorageBufferBindingSize, models::host_available_bytes(),
                               ai.device_local_bytes, ai.summary());
    }
    // The tokenizer after the size check: a model too large for the device fails from its shapes alone.
    tok_ = models::load_tokenizer(weights_, o.tokenizer);
    special_ = models::read_special_tokens(weights_, *tok_);
    models::LlamaGraph lg = models::build_llama_graph(weights_, go);
    tokens_ = lg.tokens;
    pos_ = lg.input_pos;
    logits_ = lg.logits;
    next_ = lg.next_token;
    context_ = lg.context;
    kv_type_ = lg.kv_type;
    kv_bytes_ = lg.kv_bytes;
    max_prefill_ = lg.max_prefill;
    weight_bytes_ = lg.weight_bytes;
    file_weight_bytes_ = lg.file_weight_bytes;
    widened_file_bytes_ = lg.widened_file_bytes;
    widened_gpu_bytes_ = lg.widened_gpu_bytes;
    const models::SampleIds sids{lg.sample_params, lg.sample_window, lg.sampled, lg.sample_window_out};
    exe_ = ExecutableGraph::build(std::move(lg.graph), *dev_);
    weights_.check_unchanged();  // weights were read from the mapping (block formats during the upload): still the file's?
    sampling_ = std::make_unique<models::DecodeSampling>(*exe_, sids);
    if (o.profile) exe_->enable_profiling(true);
    dev_->wait_idle();
    load_seconds_ = seconds_since(t0);
  }

  // The KV cache now holds `tokens` at [pos, pos + n): cached_ (the valid prefix of known tokens) follows.
  void note_cached(const std::vector<int32_t>& tokens, int pos) {
    if (size_t(pos) > cached_.size()) return;  // a gap: only the old prefix is known
    cached_.resize(size_t(pos));
    cached_.insert(cached_.end(), tokens.begin(), tokens.end());
  }

  // Runs tokens at [pos, pos + n) in prefill chunks; cached_ follows (cut at pos first, so a failure midway
  // leaves no stale claim).
  void run(const std::vector<int32_t>& tokens, int pos) {
    if (tokens.empty()) throw InvalidArgument("forward: no tokens");
    if (pos < 0 || pos + int(tokens.size()) > context_)
      throw LimitError(fmt::format("positions {}..{} do not fit the context of {} tokens", pos, pos + int(tokens.size()) - 1,
                                   context_));
    for (int32_t t : tokens)
      if (t < 0 || t >= vocab_size()) throw InvalidArgument(fmt::format("token id {} outside the vocabulary [0, {})", t, vocab_size()));
    if (cached_.size() > size_t(pos)) cached_.resize(size_t(pos));
    for (size_t i = 0; i < tokens.size(); i += size_t(max_prefill_)) {
      size_t n = std::min(tokens.size() - i, size_t(max_prefill_));
      std::vector<int32_t> chunk(tokens.begin() + long(i), tokens.begin() + long(i + n));
      std::vector<int32_t> p = {pos + int32_t(i)};
      exe_->set_input(tokens_, {1, int64_t(n)}, std::span<const int32_t>(chunk));
      exe_->set_input(pos_, {1}, std::span<const int32_t>(p));
      exe_->execute();
    }
    note_cached(tokens, pos);
  }

  std::vector<float> forward(const std::vector<int32_t>& tokens, int pos) override {
    std::lock_guard<std::recursive_mutex> session(session_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    run(tokens, pos);
    return exe_->read_f32(logits_);
  }

  EvalResult eval(std::span<const int32_t> seq, const EvalOptions& o) override {
    std::lock_guard<std::recursive_mutex> session(session_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    if (seq.empty()) throw InvalidArgument("eval: empty token sequence");
    if (int64_t(seq.size()) > context_)
      throw LimitError(fmt::format("the sequence has {} tokens but the context holds {}", seq.size(), context_));
    EvalResult r;
    size_t same = 0;
    if (o.reuse_cache)
      while (same < cached_.size() && same < seq.size() && cached_[same] == seq[same]) ++same;
    same = std::min(same, seq.size() - 1);  // the last token runs again for its output
    r.reused = int(same);
    if (!o.want_logits) sampling_->prepare(seq, int(seq.size()) - 1);  // before the runs: the last one draws
    // Prefill in chunks, so that cancel is seen between them.
    for (size_t i = same; i < seq.size(); i += size_t(max_prefill_)) {
      if (o.cancel && o.cancel->load()) {
        r.cancelled = true;
        return r;
      }
      size_t n = std::min(seq.size() - i, size_t(max_prefill_));
      std::vector<int32_t> chunk(seq.begin() + long(i), seq.begin() + long(i + n));
      run(chunk, int(i));
      if (o.on_prefill && seq.size() - same > size_t(max_prefill_)) {
        dev_->wait_idle();
        o.on_prefill(int(i + n - same), int(seq.size() - same));
      }
    }
    if (o.want_logits) {
      r.logits = exe_->read_f32(logits_);
      r.argmax = int32_t(std::max_element(r.logits.begin(), r.logits.end()) - r.logits.begin());
    } else {
      r.argmax = exe_->read_i32(sampling_->result(next_)).at(0);  // -1 when a logit is NaN or infinite
    }
    return r;
  }

  void decode_submit(int32_t token, int pos) override {
    std::lock_guard<std::recursive_mutex> session(session_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    if (pos < 0 || pos >= context_)
      throw LimitError(fmt::format("decode position {} is outside the context of {} tokens", pos, context_));
    if (token < -1 || token >= vocab_size())
      throw InvalidArgument(fmt::format("token id {} outside the vocabulary [0, {})", token, vocab_size()));
    try {
      std::vector<int32_t> p = {pos};
      if (token >= 0) {
        exe_->set_input(tokens_, {1, 1}, std::span<const int32_t>(&token, 1));
      } else {
        exe_->feed_input(tokens_, {1, 1}, sampling_->result(next_));
      }
      exe_->set_input(pos_, {1}, std::span<const int32_t>(p));
      if (cached_.size() > size_t(pos)) cached_.resize(size_t(pos));
      if (token >= 0 && cached_.size() == size_t(pos)) cached_.push_back(token);
      if (token >= 0) sampling_->prepare(cached_, pos);  // the known history (cached_ ends with token)
      else sampling_->prepare_fed(pos);
      exe_->execute();
      steps_.push_back({pos, token < 0, exe_->read_i32_async(sampling_->result(next_))});
    } catch (...) {
      steps_.clear();
      throw;
    }
  }

  int32_t decode_take() override {
    std::lock_guard<std::recursive_mutex> session(session_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    if (steps_.empty()) throw InvalidArgument("decode_take: no decode step pending");
    Step st = std::move(steps_.front());
    steps_.pop_front();
    int32_t t;
    try {
      t = st.read.wait().at(0);
    } catch (...) {
      steps_.clear();
      throw;
    }
    // The step after this one ran t (fed on the GPU): the cache record can follow.
    if (!steps_.empty() && steps_.front().fed && steps_.front().pos == st.pos + 1 && t >= 0 &&
        cached_.size() == size_t(st.pos + 1))
      cached_.push_back(t);
    return t;
  }

  std::unique_lock<std::recursive_mutex> exclusive() override { return std::unique_lock<std::recursive_mutex>(session_mu_); }
  bool decode_pipelined() const override { return dev_->tuning().decode_pipeline; }
  bool set_sampling(const GenerateOptions* g) override {
    std::lock_guard<std::recursive_mutex> session(session_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    if (!sampling_->available()) return false;
    if (!steps_.empty()) throw InvalidArgument("set_sampling: decode steps are pending (decode_take them first)");
    sampling_->set(g);
    return true;
  }
  bool gpu_sampling() const override { return dev_->tuning().gpu_sampling && sampling_->available(); }

  int decode_pending() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return int(steps_.size());
  }

  std::vector<int32_t> tokenize(std::string_view text, bool add_bos) const override { return tok_->encode(text, add_bos); }
  std::string detokenize(const std::vector<int32_t>& ids) const override { return tok_->decode(ids); }
  std::string token_piece(int32_t prev, int32_t id) const override { return tok_->decode_piece(prev, id); }
  const SpecialTokens& special_tokens() const override { return special_; }
  int context() const override { return context_; }
  int vocab_size() const override { return weights_.config().vocab_size; }
  double load_seconds() const override { return load_seconds_; }
  uint64_t gpu_bytes() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return dev_->allocated_bytes();
  }

  std::string description() const override {
    const LlamaConfig& c = weights_.config();
    const double mib = 1048576.0;
    // Interim f32 widening (until block-format kernels): say what it costs.
    std::string widened = widened_file_bytes_ == 0 ? std::string() :
        fmt::format(" ({:.1f} MiB of file tensors widened to {:.1f} MiB f32)", double(widened_file_bytes_) / mib,
                    double(widened_gpu_bytes_) / mib);
    return fmt::format("{} dim {} layers {} heads {}/{} (head dim {}) ffn {} vocab {} | context {} ({}) "
                       "| weights {:.1f} MiB on the GPU, {:.1f} MiB in the file{} | {}",
                       c.arch, c.dim, c.n_layers, c.n_heads, c.n_kv_heads, c.head_dim, c.hidden_dim, c.vocab_size,
                       context_, models::kv_cache_summary(kv_type_, kv_bytes_), double(weight_bytes_) / mib,
                       double(file_weight_bytes_) / mib, widened, dev_->adapter_info().summary());
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
  // Serializes every call that touches the device, the executable or the KV cache record (eval, forward,
  // profile and graph queries): one Llm is safe to share between threads, calls run one at a time (llm.h).
  // generate/generate_tokens call eval once per step; their GPU-resident greedy loop holds exclusive() throughout.
  mutable std::mutex mu_;
  // Taken (before mu_) by eval, forward and decode_*; held by exclusive() across a GPU-resident decode loop.
  std::recursive_mutex session_mu_;
  bool gguf_ = false;
  WeightSource weights_;
  std::unique_ptr<text::Tokenizer> tok_;
  SpecialTokens special_;
  std::vector<int32_t> cached_;  // the tokens whose keys/values the KV cache holds at positions 0..
  std::unique_ptr<webgpu::Device> dev_;
  std::unique_ptr<ExecutableGraph> exe_;
  struct Step {                  // a decode_submit step whose argmax is not taken yet
    int pos = 0;
    bool fed = false;            // its token came from the previous step's argmax on the GPU
    PendingRead read;
  };
  std::unique_ptr<models::DecodeSampling> sampling_;  // after exe_: refers to it
  std::deque<Step> steps_;  // after dev_ and exe_: destroyed before them (their staging buffers)
  ValueId tokens_ = -1, pos_ = -1, logits_ = -1, next_ = -1;
  int context_ = 0, max_prefill_ = 0;
  DType kv_type_ = DType::F32;  // the KV caches' element type (LlmOptions::cache_type as the graph resolved it)
  uint64_t kv_bytes_ = 0;       // both caches of every layer
  uint64_t weight_bytes_ = 0, file_weight_bytes_ = 0, widened_file_bytes_ = 0, widened_gpu_bytes_ = 0;
  double load_seconds_ = 0;
};

}  // namespace

std::unique_ptr<Llm> Llm::load(const LlmOptions& opts) { return std::make_unique<LlmImpl>(opts); }

}  // namespace wgrt
