// serve::Job: one generation request as the scheduler runs it, shared by the HTTP thread that made it and the
// scheduler thread that advances it. The scheduler pushes text pieces and the final result; the HTTP thread
// pops them (next()) and may set `cancel` (client gone). Thread-safe: every member function locks.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wgrt::serve {

struct GenParams {
  int max_tokens = -1;        // new tokens; -1: until an end token, a stop string or the context end
  float temperature = 1.0f;   // 0: greedy
  int top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;
  float repetition_penalty = 1.0f;  // "repeat_penalty" (llama-server's name); over the last 64 tokens; 1: off
  uint64_t seed = 0;
  std::vector<std::string> stop;
  bool ignore_eos = false;    // llama-server's extension: end tokens do not end the request (benchmarks)
  int logprobs = -1;          // -1: off; else each generated token's log-probability and this many alternatives
};

// One generated token's log-probability (serve/logprobs.h).
struct TokenLogprob {
  std::string token;   // its text piece (bytes as the tokenizer gives them; may be part of a UTF-8 character)
  float logprob = 0;   // natural log of its probability under the model's logits
  std::vector<std::pair<std::string, float>> top;  // the most likely tokens at that step (text, logprob), first first
};

struct JobResult {
  int prompt_tokens = 0;        // the whole prompt
  int cached_tokens = 0;        // of which reused from the slot's KV cache
  int completion_tokens = 0;
  std::string finish_reason;    // "stop" (end token or stop string), "length" (max_tokens or context end)
  std::string text;             // the whole completion
  std::string error;            // non-empty: the request failed (a server error; text may be partial)
  std::vector<TokenLogprob> logprobs;  // one per completion token when GenParams::logprobs >= 0
  double queue_seconds = 0, ttft_seconds = 0, total_seconds = 0;
};

class Job {
 public:
  using Clock = std::chrono::steady_clock;
  Job(std::vector<int32_t> prompt, GenParams p) : prompt(std::move(prompt)), params(std::move(p)) {}

  const std::vector<int32_t> prompt;
  const GenParams params;
  const Clock::time_point created = Clock::now();
  std::atomic<bool> cancel{false};

  // Scheduler side.
  void push_text(std::string s) {
    if (s.empty()) return;
    std::lock_guard<std::mutex> l(mu_);
    pieces_.push_back(std::move(s));
    cv_.notify_all();
  }
  void finish(JobResult r) {
    std::lock_guard<std::mutex> l(mu_);
    result_ = std::move(r);
    cv_.notify_all();
  }

  // HTTP side: waits up to `timeout` for a text piece (returned) or the end (nullopt with done() true).
  std::optional<std::string> next(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, timeout, [&] { return !pieces_.empty() || result_.has_value(); });
    if (pieces_.empty()) return std::nullopt;
    std::string s = std::move(pieces_.front());
    pieces_.pop_front();
    return s;
  }
  // True once the result is in and every piece was taken.
  bool done() const {
    std::lock_guard<std::mutex> l(mu_);
    return result_.has_value() && pieces_.empty();
  }
  // Waits for the result (non-streaming responses); the pieces are in JobResult::text too.
  JobResult wait() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return result_.has_value(); });
    return *result_;
  }
  JobResult result() const {
    std::lock_guard<std::mutex> l(mu_);
    return result_.value_or(JobResult{});
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> pieces_;
  std::optional<JobResult> result_;
};

}  // namespace wgrt::serve
