// `wgrt serve`: the OpenAI-compatible HTTP server (src/serve/server.h) with batched decoding of concurrent
// requests over --parallel sequence slots.
#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "commands.h"
#include "serve/server.h"

namespace wgrt::cli {

void add_serve(CLI::App& app) {
  auto o = std::make_shared<serve::ServerOptions>();
  auto* cmd = app.add_subcommand("serve", "OpenAI-compatible HTTP server: /v1/chat/completions, /v1/completions, "
                                          "/v1/models, /health, /metrics; concurrent requests decoded as one batch");
  add_model_options(cmd, o->llm);
  cmd->add_option("--host", o->host, "Address to listen on (0.0.0.0: every interface; ask for it explicitly)")->capture_default_str();
  cmd->add_option("--port", o->port, "TCP port")->check(CLI::Range(1, 65535))->capture_default_str();
  cmd->add_option("--parallel", o->parallel,
                  "Sequence slots: requests decoded together, each with its own KV cache of --ctx tokens")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--queue", o->queue, "Requests that may wait for a free slot; beyond that: 503 with Retry-After")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--api-key", o->api_key, "Require 'Authorization: Bearer KEY' on every route but /health");
  cmd->add_option("--alias", o->alias, "Model id in responses and /v1/models (default: the model file's name)");
  cmd->add_option("--chat-template", o->chat_template,
                  "Chat template: a Jinja file or a built-in name (chatml, llama2, llama3, gemma, phi3); default: the model's");
  cmd->add_option("--max-body", o->max_body_bytes, "Largest request body in bytes (larger: 413)")
      ->check(CLI::Range(size_t(1024), size_t(1) << 30))
      ->capture_default_str();
  cmd->add_option("--drain-timeout", o->drain_seconds, "Seconds SIGTERM waits for running requests before exiting")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->callback([o] {
    // Rows per step: prefill chunks share steps with the running decodes, so a long prompt must not make
    // one step long (the decodes would stall): 128 unless --prefill-chunk says otherwise.
    if (o->llm.max_prefill == 0) o->llm.max_prefill = 128;
    const int code = serve::run_server(*o);
    if (code != 0) std::exit(code);
  });
}

}  // namespace wgrt::cli
