// serve::Scheduler (scheduler.h): admission, step assembly, per-sequence sampling and stop rules.
#include "serve/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/llama_graph.h"
#include "text/sampler.h"
#include "text/stop_strings.h"
#include "text/utf8_stream.h"
#include "wgrt/error.h"

namespace wgrt::serve {

using Clock = std::chrono::steady_clock;
static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Scheduler::Seq {
  std::shared_ptr<Job> job;
  int slot = 0;
  std::vector<int32_t> tokens;  // prompt, then generated (the last one not yet run while decoding)
  size_t ran = 0;               // tokens whose keys/values are in the slot's KV region
  int cached = 0;
  std::unique_ptr<text::Sampler> sampler;  // null: greedy
  text::Utf8Stream utf8;
  text::StopMatcher stops;
  int32_t prev = -1;
  JobResult res;
  Clock::time_point started, last_token;
  bool finished = false;
  // Shared prefill: an earlier sequence whose KV cache holds (or will hold, once its prefill ran) this prompt's
  // first `share` tokens; this one runs no rows until then, takes a copy of them and prefills only the rest.
  Seq* leader = nullptr;
  size_t share = 0;
  bool decoding() const { return ran + 1 == tokens.size(); }  // else prefilling
  // Positions [0, n) the KV region holds or, still prefilling, will hold: the prompt.
  size_t prefix_held() const { return decoding() ? ran : tokens.size(); }
};

Scheduler::Scheduler(models::BatchLlm& llm, int queue_limit)
    : llm_(llm), queue_limit_(queue_limit), slot_cache_(size_t(llm.slots())), slot_busy_(size_t(llm.slots()), false) {
  if (llm.slots() > llm.max_rows())
    throw InvalidArgument(fmt::format("{} slots need at least {} rows per step (--prefill-chunk), got {}", llm.slots(),
                                      llm.slots(), llm.max_rows()));
  st_.slots = llm.slots();
  st_.queue_limit = queue_limit;
  st_.kv_capacity_tokens = int64_t(llm.slots()) * llm.context();
  thread_ = std::thread([this] { loop(); });
}

Scheduler::~Scheduler() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = closed_ = true;
    cv_.notify_all();
  }
  thread_.join();
  fail_all("the server stopped before the request finished");
}

Scheduler::Admit Scheduler::submit(std::shared_ptr<Job> job) {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return Admit::ShuttingDown;
  const bool free_slot = std::find(slot_busy_.begin(), slot_busy_.end(), false) != slot_busy_.end();
  if (!free_slot && int(queue_.size()) >= queue_limit_) {
    ++st_.requests_rejected;
    return Admit::QueueFull;
  }
  queue_.push_back(std::move(job));
  cv_.notify_all();
  return Admit::Ok;
}

void Scheduler::shutdown() {
  std::lock_guard<std::mutex> l(mu_);
  closed_ = true;
}

bool Scheduler::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  return idle_cv_.wait_for(l, timeout, [&] { return queue_.empty() && running_.empty(); });
}

SchedulerStats Scheduler::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  SchedulerStats s = st_;
  s.active = int(running_.size());
  s.queued = int(queue_.size());
  s.kv_used_tokens = 0;
  for (const auto& q : running_) s.kv_used_tokens += int64_t(q->ran);
  return s;
}

// Queued jobs into free slots: the free slot with the longest common prefix with the prompt.
void Scheduler::admit_locked() {
  while (!queue_.empty()) {
    std::shared_ptr<Job> job = queue_.front();
    if (job->cancel.load()) {
      queue_.pop_front();
      ++st_.requests_cancelled;
      JobResult r;
      r.error = "cancelled";
      job->finish(r);
      continue;
    }
    int best = -1;
    size_t best_len = 0;
    for (int s = 0; s < int(slot_busy_.size()); ++s) {
      if (slot_busy_[size_t(s)]) continue;
      const std::vector<int32_t>& c = slot_cache_[size_t(s)];
      size_t n = 0;
      while (n < c.size() && n < job->prompt.size() && c[n] == job->prompt[n]) ++n;
      if (best < 0 || n > best_len) {
        best = s;
        best_len = n;
      }
    }
    if (best < 0) return;
    // A running sequence with a longer common prefix (the other choices of an n > 1 request, a shared system
    // prompt): follow it (copy its cache rows instead of prefilling them). The last prompt token always runs.
    Seq* leader = nullptr;
    size_t share = 0;
    for (const auto& r : running_) {
      if (r->finished) continue;
      const size_t held = std::min(r->prefix_held(), job->prompt.size() - 1);
      size_t n = 0;
      while (n < held && r->tokens[n] == job->prompt[n]) ++n;
      if (n > std::max(share, best_len)) {
        leader = r.get();
        share = n;
      }
    }
    queue_.pop_front();
    auto q = std::make_unique<Seq>();
    q->job = job;
    q->slot = best;
    q->tokens = job->prompt;
    q->ran = std::min(best_len, job->prompt.size() - 1);  // the last prompt token runs again for its output
    q->cached = int(q->ran);
    q->leader = leader;
    q->share = share;
    q->prev = job->prompt.back();
    q->stops = text::StopMatcher(job->params.stop);
    q->started = Clock::now();
    q->res.prompt_tokens = int(job->prompt.size());
    q->res.cached_tokens = q->cached;
    q->res.queue_seconds = since(job->created);
    const GenParams& p = job->params;
    if (p.temperature > 0)
      q->sampler = std::make_unique<text::Sampler>(text::SamplerConfig{
          .temperature = p.temperature, .top_k = p.top_k, .top_p = p.top_p, .min_p = p.min_p,
          .repetition_penalty = p.repetition_penalty, .penalty_last_n = int32_t(models::kLlamaSampleWindow), .seed = p.seed});
    slot_busy_[size_t(best)] = true;
    slot_cache_[size_t(best)].resize(q->ran);
    st_.prompt_tokens += job->prompt.size();
    running_.push_back(std::move(q));
  }
}

void Scheduler::loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stopping_ || !queue_.empty() || !running_.empty(); });
      if (stopping_) return;
      admit_locked();
    }
    auto t0 = Clock::now();
    bool worked = false;
    try {
      worked = step();
    } catch (const std::exception& e) {
      fail_all(fmt::format("generation failed: {}", e.what()));
    }
    std::lock_guard<std::mutex> l(mu_);
    if (worked) st_.busy_seconds += since(t0);
    // Finished sequences free their slots; the slot remembers what its KV region holds.
    for (auto it = running_.begin(); it != running_.end();) {
      Seq& s = **it;
      if (!s.finished) {
        ++it;
        continue;
      }
      slot_cache_[size_t(s.slot)].assign(s.tokens.begin(), s.tokens.begin() + long(s.ran));
      slot_busy_[size_t(s.slot)] = false;
      for (auto& f : running_)  // its followers copy now (its slot is not reused before the next step) or prefill alone
        if (f->leader == &s) adopt(*f);
      it = running_.erase(it);
    }
    if (queue_.empty() && running_.empty()) idle_cv_.notify_all();
  }
}

// A follower takes its leader's cache rows once they are there; a leader that left before its prefill reached
// them (cancelled) leaves the follower to prefill alone.
void Scheduler::adopt(Seq& f) {
  Seq& l = *f.leader;
  if (l.ran >= f.share) {
    llm_.copy_prefix(l.slot, f.slot, int(f.share));
    f.ran = f.share;
    f.cached = int(f.share);
    f.res.cached_tokens = int(f.share);
  }
  if (l.ran >= f.share || l.finished) f.leader = nullptr;
}

bool Scheduler::step() {
  std::vector<models::BatchRow> rows;
  std::vector<int> outs;
  std::vector<Seq*> who;
  std::vector<Seq*> live;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& q : running_) {
      if (q->job->cancel.load()) {
        q->finished = true;
        ++st_.requests_cancelled;
        q->res.error = "cancelled";
        q->job->finish(q->res);
        continue;
      }
      if (!q->finished) live.push_back(q.get());
    }
  }
  for (Seq* s : live)  // in arrival order: a leader's own copy comes first
    if (s->leader) adopt(*s);
  const size_t budget = size_t(llm_.max_rows());
  std::vector<size_t> advance(live.size(), 0);  // rows each live sequence gets in this step
  for (size_t k = 0; k < live.size(); ++k)  // decode rows first: running sequences never wait for a prefill
    if (Seq* s = live[k]; s->decoding()) {
      rows.push_back({s->tokens.back(), s->slot, int(s->tokens.size()) - 1});
      outs.push_back(int(rows.size()) - 1);
      who.push_back(s);
      advance[k] = 1;
    }
  size_t prefill_rows = 0;
  for (size_t k = 0; k < live.size(); ++k) {
    Seq* s = live[k];
    if (s->decoding() || s->leader || rows.size() >= budget) continue;
    const size_t n = std::min(s->tokens.size() - s->ran, budget - rows.size());
    for (size_t i = 0; i < n; ++i) rows.push_back({s->tokens[s->ran + i], s->slot, int(s->ran + i)});
    advance[k] = n;
    prefill_rows += n;
    if (s->ran + n == s->tokens.size()) {
      outs.push_back(int(rows.size()) - 1);
      who.push_back(s);
    }
  }
  if (rows.empty()) return false;
  bool sample = false;
  for (Seq* s : who) sample |= s->sampler != nullptr;
  const bool none_out = outs.empty();
  if (none_out) outs.push_back(0);  // only partial prefills: one output nobody reads
  // GPU sampling (the device's policy): each sampled row draws inside the step with its own parameters and
  // counter (its position), so only B token ids come back; else the logits come back for the CPU sampler.
  const bool gpu = sample && !none_out && llm_.gpu_sampling();
  std::vector<models::RowSampling> draws;
  if (gpu)
    for (Seq* s : who) {
      const GenParams& p = s->job->params;
      models::RowSampling d;
      d.on = s->sampler != nullptr;
      d.config = {.temperature = p.temperature, .top_k = p.top_k, .top_p = p.top_p, .min_p = p.min_p,
                  .repetition_penalty = p.repetition_penalty, .seed = p.seed};
      d.step = uint64_t(s->tokens.size());
      d.history = s->tokens;
      draws.push_back(d);
    }
  models::StepOutput out = llm_.step(rows, outs, sample && !gpu, draws);
  for (size_t k = 0; k < live.size(); ++k) live[k]->ran += advance[k];  // now in the KV cache
  {
    std::lock_guard<std::mutex> l(mu_);
    ++st_.steps;
    st_.prefilled_tokens += prefill_rows;
  }
  if (none_out) return true;
  const size_t vocab = size_t(llm_.vocab_size());
  for (size_t i = 0; i < who.size(); ++i) {
    Seq& s = *who[i];
    int32_t tok = gpu && s.sampler ? out.sampled[i] : out.argmax[i];
    if (s.sampler && !gpu) {
      std::span<const float> lg(out.logits.data() + i * vocab, vocab);
      if (std::any_of(lg.begin(), lg.end(), [](float v) { return !std::isfinite(v); })) tok = -1;
      else tok = s.sampler->sample(lg, s.tokens);
    }
    if (tok < 0) {
      s.res.error = fmt::format("the model produced NaN or infinite logits at generated token {}", s.res.completion_tokens);
      end(s, "error");
      continue;
    }
    emit_token(s, tok);
  }
  return true;
}

void Scheduler::emit_token(Seq& s, int32_t tok) {
  const GenParams& p = s.job->params;
  const std::vector<int32_t>& ends = llm_.special_tokens().end_of_turn;
  auto now = Clock::now();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (s.res.completion_tokens == 0) {
      s.res.ttft_seconds = std::chrono::duration<double>(now - s.job->created).count();
      st_.ttft_seconds_sum += s.res.ttft_seconds;
      ++st_.ttft_count;
    } else {
      st_.itl_seconds_sum += std::chrono::duration<double>(now - s.last_token).count();
      ++st_.itl_count;
    }
  }
  s.last_token = now;
  if (!p.ignore_eos && std::binary_search(ends.begin(), ends.end(), tok)) return end(s, "stop");
  ++s.res.completion_tokens;
  {
    std::lock_guard<std::mutex> l(mu_);
    ++st_.generated_tokens;
  }
  std::string piece = s.stops.push(s.utf8.push(llm_.token_piece(s.prev, tok)));
  s.res.text += piece;
  s.job->push_text(std::move(piece));
  if (s.stops.found()) return end(s, "stop");
  s.prev = tok;
  if (p.max_tokens >= 0 && s.res.completion_tokens >= p.max_tokens) return end(s, "length");
  if (int64_t(s.tokens.size()) >= llm_.context()) return end(s, "length");  // the context is full
  s.tokens.push_back(tok);
}

void Scheduler::end(Seq& s, const char* reason) {
  if (!s.stops.found()) {
    std::string tail = s.stops.push(s.utf8.flush());
    if (!s.stops.found()) tail += s.stops.flush();
    s.res.text += tail;
    s.job->push_text(std::move(tail));
  }
  if (s.stops.found()) reason = "stop";
  s.res.finish_reason = reason;
  s.res.total_seconds = since(s.job->created);
  s.finished = true;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (s.res.error.empty()) ++st_.requests_finished;
    else ++st_.requests_failed;
  }
  s.job->finish(s.res);
}

void Scheduler::fail_all(const std::string& why) {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& q : running_) {
    if (q->finished) continue;
    q->finished = true;
    q->res.error = why;
    ++st_.requests_failed;
    q->job->finish(q->res);
  }
  for (auto& j : queue_) {
    ++st_.requests_failed;
    JobResult r;
    r.error = why;
    j->finish(r);
  }
  queue_.clear();
}

}  // namespace wgrt::serve
