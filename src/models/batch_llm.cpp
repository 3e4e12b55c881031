// wgrt::models::BatchLlm (batch_llm.h): loading as Llm::load does, the serving-batch graph, step() and the
// slot-0 Llm interface.
#include "models/batch_llm.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "formats/gguf.h"
#include "formats/llama2c.h"
#include "formats/model_file_kind.h"
#include "graph/executable.h"
#include "models/llama_footprint.h"
#include "models/llama_graph.h"
#include "models/special_tokens.h"
#include "models/tokenizer_loader.h"
#include "text/tokenizer.h"
#include "util/mapped_file.h"
#include "webgpu/device.h"
#include "wgrt/error.h"

namespace wgrt::models {

namespace {

class BatchLlmImpl final : public BatchLlm {
 public:
  BatchLlmImpl(const LlmOptions& o, int slots) {
    auto t0 = std::chrono::steady_clock::now();
    if (slots < 1) throw InvalidArgument(fmt::format("--parallel {} must be at least 1", slots));
    const bool gguf = model_file_kind(o.model) == ModelFileKind::Gguf;
    if (!o.tokenizer.empty()) require_regular_file(o.tokenizer, "tokenizer file");
    try {
      weights_ = gguf ? load_gguf_llama(o.model) : load_llama2c(o.model);
    } catch (const FormatError& e) {
      if (gguf) throw;
      throw FormatError(not_a_model_message(o.model, e.what()));
    }
    if (o.check_weights) weights_.check_finite();
    webgpu::DeviceOptions d;
    d.adapter = o.adapter;
    dev_ = webgpu::Device::create(d);
    const int model_ctx = weights_.config().context_length;
    if (o.context <= 0 && model_ctx <= 0) throw InvalidArgument("the model declares no context length: pass a context size");
    LlamaGraphOptions go;
    go.context = o.context > 0 ? o.context : std::min(model_ctx, 4096);
    go.max_prefill = o.max_prefill > 0 ? std::min(o.max_prefill, go.context)
                                       : default_prefill_chunk(weights_, go, dev_->tuning().prefill_chunk,
                                                               dev_->limits().maxStorageBufferBindingSize);
    go.weights = o.force_f32 ? WeightPolicy::F32 : WeightPolicy::Auto;
    go.slots = slots;
    go.fuse = dev_->tuning().fused_gemv;  // the fused layer body at M = rows per step, as Llm (WGRT_FUSED_GEMV)
    go.kv_type = kv_cache_option(o.cache_type);
    if (go.context <= model_ctx) {
      const WGPULimits& lim = dev_->limits();
      check_llama_fits(llama_footprint(weights_, go), lim.maxBufferSize, lim.maxStorageBufferBindingSize,
                       host_available_bytes());
    }
    tok_ = load_tokenizer(weights_, o.tokenizer);
    special_ = read_special_tokens(weights_, *tok_);
    LlamaGraph lg = build_llama_graph(weights_, go);
    g_ = {lg.tokens, lg.row_slots, lg.row_pos, lg.out_rows, lg.logits, lg.next_token, lg.sample_params,
          lg.sample_window, lg.sampled, lg.context, lg.max_prefill, lg.weight_bytes};
    kv_caches_ = lg.kv_caches;
    const LlamaConfig& c = weights_.config();
    kv_row_bytes_ = uint64_t(c.n_kv_heads) * uint64_t(c.head_dim) * (dtype_bits(lg.kv_type) / 8);
    kv_type_ = lg.kv_type;
    kv_bytes_ = lg.kv_bytes;
    exe_ = ExecutableGraph::build(std::move(lg.graph), *dev_);
    weights_.check_unchanged();  // weights were read from the mapping (block formats during the upload): still the file's?
    const std::vector<int32_t> empty(size_t(kLlamaSampleWindow), -1);
    exe_->set_input(g_.sample_window, {1, kLlamaSampleWindow}, std::span<const int32_t>(empty));
    slots_ = slots;
    if (o.profile) exe_->enable_profiling(true);
    dev_->wait_idle();
    load_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  int slots() const override { return slots_; }
  int max_rows() const override { return g_.max_prefill; }

  StepOutput step(std::span<const BatchRow> rows, std::span<const int> out_rows, bool want_logits,
                  std::span<const RowSampling> sampling) override {
    std::lock_guard<std::mutex> lock(mu_);
    return run_step(rows, out_rows, want_logits, sampling);
  }
  bool gpu_sampling() const override { return dev_->tuning().gpu_sampling; }
  void copy_prefix(int from, int to, int n) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (from < 0 || from >= slots_ || to < 0 || to >= slots_ || n < 0 || n > context())
      throw LimitError(fmt::format("copy_prefix: slots {} -> {} of {}, {} positions of {}", from, to, slots_, n, context()));
    if (from == to) throw InvalidArgument(fmt::format("copy_prefix: slot {} onto itself", from));
    const uint64_t slot_bytes = uint64_t(context()) * kv_row_bytes_;
    std::vector<ExecutableGraph::StateCopy> copies;
    for (ValueId id : kv_caches_) copies.push_back({id, uint64_t(from) * slot_bytes, uint64_t(to) * slot_bytes, uint64_t(n) * kv_row_bytes_});
    exe_->copy_within(copies);
    if (to == 0) cached_.clear();  // slot 0's record (eval's prefix reuse) no longer holds
  }
  size_t step_dispatches() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return stepped_ ? exe_->dispatch_count(true) : 0;
  }

  EvalResult eval(std::span<const int32_t> seq, const EvalOptions& o) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (seq.empty()) throw InvalidArgument("eval: empty token sequence");
    if (int64_t(seq.size()) > context())
      throw LimitError(fmt::format("the sequence has {} tokens but the context holds {}", seq.size(), context()));
    EvalResult r;
    size_t same = 0;
    if (o.reuse_cache)
      while (same < cached_.size() && same < seq.size() && cached_[same] == seq[same]) ++same;
    same = std::min(same, seq.size() - 1);
    r.reused = int(same);
    StepOutput out;
    for (size_t i = same; i < seq.size(); i += size_t(max_rows())) {
      if (o.cancel && o.cancel->load()) {
        r.cancelled = true;
        return r;
      }
      out = run_chunk(seq, i, std::min(seq.size(), i + size_t(max_rows())), o.want_logits);
    }
    r.argmax = out.argmax.at(0);
    r.logits = std::move(out.logits);
    return r;
  }

  std::vector<float> forward(const std::vector<int32_t>& tokens, int pos) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (tokens.empty()) throw InvalidArgument("forward: no tokens");
    if (pos < 0 || pos + int64_t(tokens.size()) > context())
      throw LimitError(fmt::format("positions {}..{} do not fit the context of {} tokens", pos, pos + int(tokens.size()) - 1, context()));
    std::vector<int32_t> seq(size_t(pos), 0);  // positions before pos: whatever earlier calls left
    seq.insert(seq.end(), tokens.begin(), tokens.end());
    StepOutput out;
    for (size_t i = size_t(pos); i < seq.size(); i += size_t(max_rows()))
      out = run_chunk(seq, i, std::min(seq.size(), i + size_t(max_rows())), true);
    cached_.clear();  // the prefix is not known
    return out.logits;
  }

  std::vector<int32_t> tokenize(std::string_view text, bool add_bos) const override { return tok_->encode(text, add_bos); }
  std::string detokenize(const std::vector<int32_t>& ids) const override { return tok_->decode(ids); }
  std::string token_piece(int32_t prev, int32_t id) const override { return tok_->decode_piece(prev, id); }
  const SpecialTokens& special_tokens() const override { return special_; }
  int context() const override { return g_.context; }
  int vocab_size() const override { return weights_.config().vocab_size; }
  double load_seconds() const override { return load_seconds_; }
  uint64_t gpu_bytes() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return dev_->allocated_bytes();
  }
  std::string description() const override {
    const LlamaConfig& c = weights_.config();
    return fmt::format("{} dim {} layers {} vocab {} | context {} x {} slots ({}), {} rows per step | weights {:.1f} MiB | {}",
                       c.arch, c.dim, c.n_layers, c.vocab_size, context(), slots_, kv_cache_summary(kv_type_, kv_bytes_),
                       max_rows(), double(g_.weight_bytes) / 1048576.0, dev_->adapter_info().summary());
  }
  // The GPU-resident decode loop belongs to the single-sequence Llm; generate_tokens on a BatchLlm (slot 0)
  // decodes step by step through eval, and the server drives step().
  void decode_submit(int32_t, int) override { throw Unsupported("decode_submit: not available on a BatchLlm (use step)"); }
  int32_t decode_take() override { throw Unsupported("decode_take: not available on a BatchLlm (use step)"); }
  int decode_pending() const override { return 0; }
  bool decode_pipelined() const override { return false; }
  std::unique_lock<std::recursive_mutex> exclusive() override { return std::unique_lock<std::recursive_mutex>(session_mu_); }
  std::string profile_report() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return exe_->profiler() ? exe_->profiler()->table() : "";
  }
  std::string profile_trace() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return exe_->profiler() ? exe_->profiler()->chrome_trace() : "";
  }
  void profile_reset() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (exe_->profiler()) exe_->profiler()->reset();
  }
  std::string graph_dump() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return exe_->dump();
  }

 private:
  // Slot 0 runs seq[begin, end) at positions begin..; cached_ follows. Lock held.
  StepOutput run_chunk(std::span<const int32_t> seq, size_t begin, size_t end, bool want_logits) {
    std::vector<BatchRow> rows;
    for (size_t i = begin; i < end; ++i) rows.push_back({seq[i], 0, int(i)});
    std::vector<int32_t> known(cached_.begin(), cached_.begin() + long(std::min(cached_.size(), begin)));
    const int last = int(rows.size()) - 1;
    StepOutput out = run_step(rows, std::span<const int>(&last, 1), want_logits);  // forgets cached_
    if (known.size() == begin) {
      cached_ = std::move(known);
      cached_.insert(cached_.end(), seq.begin() + long(begin), seq.begin() + long(end));
    }
    return out;
  }

  StepOutput run_step(std::span<const BatchRow> rows, std::span<const int> out_rows, bool want_logits,
                      std::span<const RowSampling> sampling = {}) {
    const int64_t R = int64_t(rows.size()), B = int64_t(out_rows.size());
    if (R == 0 || R > max_rows()) throw InvalidArgument(fmt::format("a step takes 1..{} rows, got {}", max_rows(), R));
    if (B == 0 || B > slots_) throw InvalidArgument(fmt::format("a step returns 1..{} outputs, got {}", slots_, B));
    std::vector<int32_t> tok(static_cast<size_t>(R)), slot(tok), pos(tok), outs(out_rows.begin(), out_rows.end());
    for (size_t i = 0; i < rows.size(); ++i) {
      const BatchRow& r = rows[i];
      if (r.token < 0 || r.token >= vocab_size())
        throw InvalidArgument(fmt::format("token id {} outside the vocabulary [0, {})", r.token, vocab_size()));
      if (r.slot < 0 || r.slot >= slots_ || r.pos < 0 || r.pos >= context())
        throw LimitError(fmt::format("row {}: slot {} position {} outside {} slots x {} positions", i, r.slot, r.pos, slots_, context()));
      tok[i] = r.token;
      slot[i] = r.slot;
      pos[i] = r.pos;
    }
    for (int o : outs)
      if (o < 0 || o >= R) throw InvalidArgument(fmt::format("output row {} outside the {} rows of the step", o, R));
    if (!sampling.empty() && int64_t(sampling.size()) != B)
      throw InvalidArgument(fmt::format("a step with {} outputs takes 0 or {} sampling entries, got {}", B, B, sampling.size()));
    const int64_t W = kLlamaSampleWindow;
    std::vector<int32_t> sp(size_t(B * ops::kSampleParams), 0), sw;
    bool any = false, all = !sampling.empty();
    for (size_t i = 0; i < sampling.size(); ++i) {
      const RowSampling& s = sampling[i];
      all &= s.on;
      if (!s.on) continue;
      if (!any) sw.assign(size_t(B * W), -1);
      any = true;
      const auto p = ops::sample_params(s.config, s.step);
      std::copy(p.begin(), p.end(), sp.begin() + long(i * ops::kSampleParams));
      const size_t n = std::min(s.history.size(), size_t(W));
      std::copy(s.history.end() - long(n), s.history.end(), sw.begin() + long((i + 1) * W - n));
    }
    // All 0: no draw (the op then ignores the row count, so an all-off block stays as it is).
    if (any || !params_off_) exe_->set_input(g_.sample_params, {B, ops::kSampleParams}, std::span<const int32_t>(sp));
    params_off_ = !any;
    if (any) exe_->set_input(g_.sample_window, {B, W}, std::span<const int32_t>(sw));
    // A step that writes slot 0 (other than eval's own chunks, which re-record it) makes eval's prefix stale.
    if (std::find(slot.begin(), slot.end(), 0) != slot.end()) cached_.clear();
    exe_->set_input(g_.tokens, {1, R}, std::span<const int32_t>(tok));
    exe_->set_input(g_.row_slots, {R}, std::span<const int32_t>(slot));
    exe_->set_input(g_.row_pos, {R}, std::span<const int32_t>(pos));
    exe_->set_input(g_.out_rows, {B}, std::span<const int32_t>(outs));
    exe_->execute();
    stepped_ = true;
    StepOutput out;
    if (!all) out.argmax = exe_->read_i32(g_.next_token);
    if (any) out.sampled = exe_->read_i32(g_.sampled);
    if (want_logits) out.logits = exe_->read_f32(g_.logits);
    return out;
  }

  mutable std::mutex mu_;
  std::recursive_mutex session_mu_;  // exclusive(): callers' multi-call sequences (step/eval lock mu_ themselves)
  WeightSource weights_;
  std::unique_ptr<text::Tokenizer> tok_;
  SpecialTokens special_;
  std::unique_ptr<webgpu::Device> dev_;
  std::unique_ptr<ExecutableGraph> exe_;
  struct Ids {
    ValueId tokens, row_slots, row_pos, out_rows, logits, next_token, sample_params, sample_window, sampled;
    int context, max_prefill;
    uint64_t weight_bytes;
  } g_{};
  int slots_ = 0;
  std::vector<ValueId> kv_caches_;  // every layer's k_cache, v_cache [slots, C, Hkv, hd]
  uint64_t kv_row_bytes_ = 0;       // one position of one layer's cache: Hkv * hd elements of the cache type
  DType kv_type_ = DType::F32;      // the caches' element type
  uint64_t kv_bytes_ = 0;           // every layer's caches, all slots
  bool params_off_ = false;      // the sample_params input holds no row that is on
  bool stepped_ = false;         // a step has run (step_dispatches)
  std::vector<int32_t> cached_;  // slot 0's tokens at positions 0.. (eval's prefix reuse)
  double load_seconds_ = 0;
};

}  // namespace

std::unique_ptr<BatchLlm> BatchLlm::load(const LlmOptions& opts, int slots) {
  return std::make_unique<BatchLlmImpl>(opts, slots);
}

}  // namespace wgrt::models
