// Prometheus text for /metrics (metrics.h).
#include "serve/metrics.h"

#include <fmt/format.h>

namespace wgrt::serve {

namespace {

void metric(std::string& out, const char* name, const char* type, const char* help, double v, const char* labels = "") {
  out += fmt::format("# HELP wgrt_{} {}\n# TYPE wgrt_{} {}\nwgrt_{}{} {}\n", name, help, name, type, name, labels, v);
}

}  // namespace

std::string prometheus_text(const SchedulerStats& s, bool loaded) {
  std::string o;
  metric(o, "model_loaded", "gauge", "1 once the model is loaded", loaded ? 1 : 0);
  o += "# HELP wgrt_requests_total Generation requests that ended, by outcome\n# TYPE wgrt_requests_total counter\n";
  o += fmt::format("wgrt_requests_total{{outcome=\"ok\"}} {}\n", s.requests_finished);
  o += fmt::format("wgrt_requests_total{{outcome=\"error\"}} {}\n", s.requests_failed);
  o += fmt::format("wgrt_requests_total{{outcome=\"cancelled\"}} {}\n", s.requests_cancelled);
  metric(o, "requests_rejected_total", "counter", "Requests refused with 503 because the queue was full", double(s.requests_rejected));
  metric(o, "prompt_tokens_total", "counter", "Prompt tokens of admitted requests", double(s.prompt_tokens));
  metric(o, "prefill_tokens_total", "counter", "Prompt tokens run (not reused from a slot's KV cache)", double(s.prefilled_tokens));
  metric(o, "tokens_generated_total", "counter", "Tokens generated", double(s.generated_tokens));
  metric(o, "tokens_per_second", "gauge", "Tokens generated per second of busy time (a sequence running)",
         s.busy_seconds > 0 ? double(s.generated_tokens) / s.busy_seconds : 0.0);
  metric(o, "decode_steps_total", "counter", "Batched model steps run", double(s.steps));
  metric(o, "queue_depth", "gauge", "Requests waiting for a slot", s.queued);
  metric(o, "queue_limit", "gauge", "Requests that may wait for a slot", s.queue_limit);
  metric(o, "requests_running", "gauge", "Requests holding a slot", s.active);
  metric(o, "slots", "gauge", "Sequence slots (--parallel)", s.slots);
  metric(o, "kv_cache_used_tokens", "gauge", "KV-cache positions held by running requests", double(s.kv_used_tokens));
  metric(o, "kv_cache_capacity_tokens", "gauge", "KV-cache positions in all slots", double(s.kv_capacity_tokens));
  metric(o, "kv_cache_usage_ratio", "gauge", "kv_cache_used_tokens / kv_cache_capacity_tokens",
         s.kv_capacity_tokens > 0 ? double(s.kv_used_tokens) / double(s.kv_capacity_tokens) : 0.0);
  o += "# HELP wgrt_time_to_first_token_seconds From request arrival to its first token\n"
       "# TYPE wgrt_time_to_first_token_seconds summary\n";
  o += fmt::format("wgrt_time_to_first_token_seconds_sum {}\nwgrt_time_to_first_token_seconds_count {}\n", s.ttft_seconds_sum, s.ttft_count);
  o += "# HELP wgrt_inter_token_seconds Time between consecutive tokens of a request\n# TYPE wgrt_inter_token_seconds summary\n";
  o += fmt::format("wgrt_inter_token_seconds_sum {}\nwgrt_inter_token_seconds_count {}\n", s.itl_seconds_sum, s.itl_count);
  return o;
}

}  // namespace wgrt::serve
