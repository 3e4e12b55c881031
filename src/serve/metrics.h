// GET /metrics: the scheduler's counters in the Prometheus text exposition format (version 0.0.4).
#pragma once
#include <string>

#include "serve/scheduler.h"

namespace wgrt::serve {

// Metric names (prefix wgrt_): requests_total{outcome=...} counter, requests_rejected_total counter,
// prompt_tokens_total, prefill_tokens_total, tokens_generated_total counters, tokens_per_second gauge (tokens
// generated / seconds with a sequence running), queue_depth, requests_running, slots gauges,
// kv_cache_used_tokens / kv_cache_capacity_tokens / kv_cache_usage_ratio gauges, decode_steps_total counter,
// time_to_first_token_seconds and inter_token_seconds summaries (_sum, _count).
std::string prometheus_text(const SchedulerStats& s, bool loaded);

}  // namespace wgrt::serve
