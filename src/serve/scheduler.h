// serve::Scheduler: continuous batching of generation jobs over one models::BatchLlm. One scheduler thread
// owns the model. Each step it admits queued jobs into free slots (the slot whose KV cache holds the longest
// prefix of the prompt, so a repeated prompt or the next turn of a chat prefills only what is new; a running
// sequence with a longer common prefix, e.g. another choice of the same request, is followed instead: its
// KV rows are copied once its prefill has written them, BatchLlm::copy_prefix), then runs
// one BatchLlm::step with a decode row for every running sequence and, in the rows left, prefill chunks of
// the sequences still prefilling (in arrival order): new requests join at the next step and their prefill is
// interleaved with the running decodes. Outputs are sampled per sequence (greedy or text::Sampler), streamed
// through Utf8Stream and StopMatcher, and finished at an end-of-turn token, a stop string, max_tokens or the
// context end (the rule of Llm::generate_tokens). A job whose `cancel` is set is dropped at the next step and
// frees its slot. Jobs that find no slot wait in a bounded queue (submit() refuses when it is full).
// Threads: submit(), stats(), shutdown() and wait_idle() from any thread; the destructor stops the thread
// (remaining jobs finish with an error).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "models/batch_llm.h"
#include "serve/job.h"

namespace wgrt::serve {

struct SchedulerStats {
  int slots = 0, active = 0, queued = 0, queue_limit = 0;
  int64_t kv_used_tokens = 0, kv_capacity_tokens = 0;  // positions held by running sequences / slots x context
  uint64_t requests_finished = 0, requests_failed = 0, requests_cancelled = 0, requests_rejected = 0;
  uint64_t prompt_tokens = 0, prefilled_tokens = 0, generated_tokens = 0;  // totals
  uint64_t steps = 0;
  double busy_seconds = 0;   // time with at least one sequence running
  double ttft_seconds_sum = 0, itl_seconds_sum = 0;  // time to first token, inter-token gaps (sums)
  uint64_t ttft_count = 0, itl_count = 0;
};

class Scheduler {
 public:
  // queue_limit >= 0 jobs may wait for a slot. The model's slots must not exceed its rows per step.
  Scheduler(models::BatchLlm& llm, int queue_limit);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  enum class Admit { Ok, QueueFull, ShuttingDown };
  Admit submit(std::shared_ptr<Job> job);
  // Refuses new jobs from now on; running and queued ones continue.
  void shutdown();
  // Waits until no job is running or queued, at most `timeout`; true when idle.
  bool wait_idle(std::chrono::milliseconds timeout);
  SchedulerStats stats() const;

 private:
  struct Seq;
  void loop();
  void admit_locked();
  bool step();  // false when there was nothing to do
  void adopt(Seq& follower);
  void emit_token(Seq& s, int32_t tok);
  void end(Seq& s, const char* reason);
  void fail_all(const std::string& why);

  models::BatchLlm& llm_;
  const int queue_limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::vector<std::unique_ptr<Seq>> running_;   // in arrival order
  std::vector<std::vector<int32_t>> slot_cache_;  // per slot: the tokens its KV region holds at 0..
  std::vector<bool> slot_busy_;
  bool stopping_ = false, closed_ = false;
  SchedulerStats st_;
  std::thread thread_;
};

}  // namespace wgrt::serve
