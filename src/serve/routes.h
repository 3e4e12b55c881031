// The HTTP routes of wgrt serve (server.h) and the state they share with the server's lifecycle.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "serve/server.h"

namespace httplib {
class Server;
}

namespace wgrt::models {
class BatchLlm;
}

namespace wgrt::serve {

class Scheduler;

enum class Phase { Loading, Ready, Draining };

struct ServeState {
  ServerOptions opts;
  std::string model_id;
  std::atomic<Phase> phase{Phase::Loading};
  std::atomic<models::BatchLlm*> llm{nullptr};      // set once loaded (before phase Ready)
  std::atomic<Scheduler*> scheduler{nullptr};
  ChatTemplateSource tmpl;                          // resolved before phase Ready
  std::atomic<int> in_flight{0};                    // generation requests not yet fully answered
  std::atomic<bool> stopped{false};                 // drain timed out: waiting handlers give up
  std::atomic<uint64_t> next_id{1};
};

// Installs every route, the 405 handlers, authorization and the OpenAI error bodies on `http`.
void install_routes(httplib::Server& http, ServeState& st);

}  // namespace wgrt::serve
