// wgrt serve: an OpenAI-compatible HTTP server (cpp-httplib) over one models::BatchLlm and its Scheduler.
//   POST /v1/chat/completions, /v1/completions (streaming as server-sent events ending in "data: [DONE]", or
//   whole); GET /v1/models, /health (200 once loaded, 503 while loading or shutting down), /metrics
//   (Prometheus text). Errors are OpenAI error objects: 400 bad body or field, prompt longer than the context
//   (naming both numbers), 401 without the --api-key bearer token, 404 unknown route, 405 wrong method (with
//   Allow), 413 body over the limit, 503 queue full (Retry-After) or shutting down.
// max_tokens beyond what the context leaves is clamped (finish_reason "length" when it ends there); the
// response header X-Wgrt-Max-Tokens-Clamped says to what.
// Lifecycle: listens first, loads the model (health 503 meanwhile), serves; SIGTERM or SIGINT stops taking
// requests (503), drains the running ones for up to drain_seconds, then returns 0.
#pragma once
#include <cstddef>
#include <string>

#include "wgrt/llm.h"

namespace wgrt::serve {

struct ServerOptions {
  LlmOptions llm;
  int parallel = 1;                 // sequence slots
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string api_key;              // "" : no authorization
  int queue = 16;                   // requests that may wait for a slot
  size_t max_body_bytes = 1 << 20;  // larger bodies get 413
  double drain_seconds = 30;        // SIGTERM: how long running requests may take to finish
  std::string alias;                // model id in responses ("" : the model file's name)
  std::string chat_template;        // --chat-template FILE|NAME ("" : the model's)
};

// Runs until SIGTERM/SIGINT (then drains). Returns the exit code; prints "wgrt: error: ..." for a port that
// cannot be bound or a model that fails to load (exit 1).
int run_server(const ServerOptions& o);

}  // namespace wgrt::serve
