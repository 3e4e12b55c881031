// Routes of wgrt serve (routes.h): authorization, health, models, metrics, completions (whole and streamed).
#include "serve/routes.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "models/batch_llm.h"
#include "serve/auth.h"
#include "serve/metrics.h"
#include "serve/openai.h"
#include "serve/scheduler.h"
#include "wgrt/error.h"

namespace wgrt::serve {

using nlohmann::json;

namespace {

const char* kJson = "application/json";

void send_error(httplib::Response& res, int status, const std::string& msg, const std::string& type,
                const std::string& param = "") {
  res.status = status;
  res.set_content(error_body(msg, type, param, status).dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

// RAII count of a generation request in flight (the drain waits for zero).
struct InFlight {
  std::atomic<int>& n;
  explicit InFlight(std::atomic<int>& c) : n(c) { ++n; }
  ~InFlight() { --n; }
};

// The prompt tokens of a request (chat: rendered with the chat template). Throws ApiError 400.
std::vector<int32_t> prompt_tokens(ServeState& st, models::BatchLlm& llm, ParsedRequest& req) {
  if (!req.chat) {
    const SpecialTokens& sp = llm.special_tokens();
    std::vector<int32_t> ids = llm.tokenize(req.prompt, sp.add_bos && sp.bos >= 0);
    if (ids.empty()) throw ApiError(400, "the prompt is empty and the model adds no BOS token: nothing to start from", "invalid_request_error", "prompt");
    return ids;
  }
  try {
    ChatOptions co;
    co.chat_template = st.tmpl;
    ChatSession chat(llm, co);
    for (ChatMessage& m : req.messages) chat.add(std::move(m.role), std::move(m.content));
    for (const std::string& s : st.tmpl.stop) req.params.stop.push_back(s);
    return chat.prompt_tokens();
  } catch (const Error& e) {  // the template refused the conversation (raise_exception, bad roles)
    throw ApiError(400, fmt::format("the chat template cannot render these messages: {}", e.what()), "invalid_request_error", "messages");
  }
}

void handle_completion(ServeState& st, const httplib::Request& rq, httplib::Response& res, bool chat) {
  InFlight guard(st.in_flight);
  if (st.phase.load() == Phase::Loading) return send_error(res, 503, "the model is still loading", "unavailable_error");
  if (st.phase.load() == Phase::Draining) return send_error(res, 503, "the server is shutting down", "unavailable_error");
  models::BatchLlm& llm = *st.llm.load();
  Scheduler& sched = *st.scheduler.load();
  auto req = std::make_shared<ParsedRequest>();
  std::vector<int32_t> ids;
  try {
    *req = parse_request(rq.body, chat);
    ids = prompt_tokens(st, llm, *req);
  } catch (const ApiError& e) {
    return send_error(res, e.status, e.what(), e.type, e.param);
  }
  const int ctx = llm.context();
  if (int(ids.size()) > ctx)
    return send_error(res, 400, fmt::format("the prompt has {} tokens but the context holds {}: shorten it (or start the server with a larger --ctx)",
                                            ids.size(), ctx), "invalid_request_error", chat ? "messages" : "prompt");
  // A prompt of n tokens leaves room for ctx - n + 1 new ones (Llm::generate_tokens' rule): clamp to that.
  const int room = ctx - int(ids.size()) + 1;
  GenParams p = req->params;
  if (p.max_tokens > room) {
    res.set_header("X-Wgrt-Max-Tokens-Clamped", std::to_string(room));
    p.max_tokens = room;
  }
  if (req->n > llm.slots())
    return send_error(res, 400, fmt::format("'n' is {} but the server runs {} sequences at once (--parallel): ask for at most {}",
                                            req->n, llm.slots(), llm.slots()), "invalid_request_error", "n");
  // n choices: n sequences of the same prompt (choice i draws with seed + i), each in its own slot.
  auto jobs = std::make_shared<std::vector<std::shared_ptr<Job>>>();
  for (int i = 0; i < req->n; ++i) {
    GenParams pi = p;
    pi.seed = p.seed + uint64_t(i);
    auto job = std::make_shared<Job>(ids, pi);
    const Scheduler::Admit a = sched.submit(job);
    if (a != Scheduler::Admit::Ok) {
      for (auto& j : *jobs) j->cancel = true;
      if (a == Scheduler::Admit::ShuttingDown) return send_error(res, 503, "the server is shutting down", "unavailable_error");
      res.set_header("Retry-After", "1");
      return send_error(res, 503, "all slots are busy and the queue is full: retry later", "unavailable_error");
    }
    jobs->push_back(std::move(job));
  }
  auto all_done = [jobs] {
    return std::all_of(jobs->begin(), jobs->end(), [](const auto& j) { return j->done(); });
  };
  auto results = [jobs] {
    std::vector<JobResult> r;
    for (const auto& j : *jobs) r.push_back(j->result());
    return r;
  };
  auto cancel_all = [jobs] {
    for (auto& j : *jobs) j->cancel = true;
  };
  auto ids_out = std::make_shared<ResponseIds>();
  ids_out->id = fmt::format("{}-{}", chat ? "chatcmpl" : "cmpl", st.next_id.fetch_add(1));
  ids_out->model = st.model_id;
  ids_out->created = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  using namespace std::chrono_literals;
  if (!req->stream) {
    while (!all_done()) {
      for (auto& j : *jobs)
        while (!j->done() && j->next(100ms)) {
        }
      if (st.stopped.load()) {
        cancel_all();
        return send_error(res, 503, "the server stopped before the request finished", "unavailable_error");
      }
    }
    const std::vector<JobResult> r = results();
    for (const JobResult& x : r)
      if (!x.error.empty()) return send_error(res, 500, x.error, "server_error");
    res.set_content(full_response(*req, *ids_out, r).dump(-1, ' ', false, json::error_handler_t::replace), kJson);
    return;
  }
  // Streaming: the provider runs on this connection's thread until every choice ends or the client goes away.
  // Pieces of the n choices interleave as they come, each chunk naming its choice's index.
  ++st.in_flight;  // held until the stream ends (released below)
  auto first = std::make_shared<bool>(true);
  auto ended = std::make_shared<std::vector<bool>>(jobs->size(), false);
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
      "text/event-stream",
      [&st, jobs, req, ids_out, first, ended, results, cancel_all](size_t, httplib::DataSink& sink) {
        auto write = [&](const std::string& s) {
          if (!sink.write(s.data(), s.size())) {
            cancel_all();  // the client is gone: free the slots
            return false;
          }
          return true;
        };
        if (*first) {
          *first = false;
          for (int i = 0; req->chat && i < int(jobs->size()); ++i)
            if (!write(sse_event(chunk(*req, *ids_out, "", "", true, i)))) return false;
        }
        for (;;) {
          if (st.stopped.load()) {
            cancel_all();
            return false;
          }
          bool open = false, wrote = false;
          for (size_t i = 0; i < jobs->size(); ++i) {
            if ((*ended)[i]) continue;
            Job& job = *(*jobs)[i];
            // One choice: wait briefly on it, then take what the others have without waiting.
            std::optional<std::string> piece = job.next(wrote ? 0ms : 100ms / int(jobs->size()));
            for (; piece; piece = job.next(0ms)) {
              if (!write(sse_event(chunk(*req, *ids_out, *piece, "", false, int(i))))) return false;
              wrote = true;
            }
            if (!job.done()) {
              open = true;
              continue;
            }
            (*ended)[i] = true;
            JobResult r = job.result();
            if (!r.error.empty()) {
              write(sse_event(error_body(r.error, "server_error", "", 500)));
              cancel_all();
              write(kSseDone);
              sink.done();
              return true;
            }
            if (!write(sse_event(chunk(*req, *ids_out, "", r.finish_reason, false, int(i))))) return false;
          }
          if (!open) break;
          if (!wrote && !sink.is_writable()) {
            cancel_all();
            return false;
          }
        }
        if (req->include_usage && !write(sse_event(usage_chunk(*req, *ids_out, results())))) return false;
        if (!write(kSseDone)) return false;
        sink.done();
        return true;
      },
      [&st, cancel_all](bool success) {
        if (!success) cancel_all();
        --st.in_flight;
      });
}

void method_not_allowed(httplib::Server& http, const std::string& path, const std::string& allow) {
  auto h = [allow](const httplib::Request& rq, httplib::Response& res) {
    res.set_header("Allow", allow);
    send_error(res, 405, fmt::format("{} is not allowed on {} (use {})", rq.method, rq.path, allow), "invalid_request_error");
  };
  if (allow != "GET") http.Get(path, h);
  if (allow != "POST") http.Post(path, h);
  http.Put(path, h);
  http.Patch(path, h);
  http.Delete(path, h);
}

}  // namespace

void install_routes(httplib::Server& http, ServeState& st) {
  http.set_pre_routing_handler([&st](const httplib::Request& rq, httplib::Response& res) {
    if (rq.path == "/health" || st.opts.api_key.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (authorized(rq.get_header_value("Authorization"), st.opts.api_key)) return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401, "invalid or missing API key: send the header 'Authorization: Bearer <key>'", "authentication_error");
    return httplib::Server::HandlerResponse::Handled;
  });
  // Errors httplib answers itself (404 unknown route, 413 body too large, 400 bad HTTP) get an OpenAI error body.
  http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& rq, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string msg = res.status == 404 ? fmt::format("no route {} {}", rq.method, rq.path)
                    : res.status == 413 ? "the request body is larger than the server's limit (--max-body)"
                                        : fmt::format("HTTP error {}", res.status);
    send_error(res, res.status, msg, res.status == 404 ? "not_found_error" : "invalid_request_error");
    return httplib::Server::HandlerResponse::Handled;
  }));
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, 500, what, "server_error");
  });

  http.Get("/health", [&st](const httplib::Request&, httplib::Response& res) {
    switch (st.phase.load()) {
      case Phase::Ready:
        res.set_content(R"({"status":"ok"})", kJson);
        return;
      case Phase::Loading:
        return send_error(res, 503, "loading the model", "unavailable_error");
      case Phase::Draining:
        return send_error(res, 503, "the server is shutting down", "unavailable_error");
    }
  });
  http.Get("/v1/models", [&st](const httplib::Request&, httplib::Response& res) {
    json m = {{"id", st.model_id}, {"object", "model"}, {"created", 0}, {"owned_by", "wgrt"}};
    if (models::BatchLlm* l = st.llm.load()) m["meta"] = {{"n_ctx", l->context()}, {"n_vocab", l->vocab_size()}, {"slots", l->slots()}};
    res.set_content(json({{"object", "list"}, {"data", json::array({m})}}).dump(), kJson);
  });
  http.Get("/metrics", [&st](const httplib::Request&, httplib::Response& res) {
    Scheduler* s = st.scheduler.load();
    res.set_content(prometheus_text(s ? s->stats() : SchedulerStats{}, s != nullptr), "text/plain; version=0.0.4");
  });
  http.Post("/v1/chat/completions", [&st](const httplib::Request& rq, httplib::Response& res) { handle_completion(st, rq, res, true); });
  http.Post("/v1/completions", [&st](const httplib::Request& rq, httplib::Response& res) { handle_completion(st, rq, res, false); });
  for (const char* p : {"/health", "/v1/models", "/metrics"}) method_not_allowed(http, p, "GET");
  for (const char* p : {"/v1/chat/completions", "/v1/completions"}) method_not_allowed(http, p, "POST");
}

}  // namespace wgrt::serve
