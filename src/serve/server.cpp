// wgrt serve (server.h): lifecycle, signals and routes. Request mapping is openai.*, batching scheduler.*.
#include "serve/server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "models/batch_llm.h"
#include "serve/auth.h"
#include "serve/metrics.h"
#include "serve/routes.h"
#include "serve/scheduler.h"
#include "util/printable.h"
#include "wgrt/error.h"

namespace wgrt::serve {

namespace {

void log(const std::string& s) { fmt::print(stderr, "wgrt serve: {}\n", s); }

}  // namespace

int run_server(const ServerOptions& o) {
  // Signals go to one thread (sigtimedwait below); a client that disconnects never kills the process.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  ServeState st;
  st.opts = o;
  st.model_id = o.alias.empty() ? std::filesystem::path(o.llm.model).filename().string() : o.alias;
  httplib::Server http;
  const int threads = o.parallel + o.queue + 8;  // every running or waiting request holds a connection thread
  http.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  http.set_payload_max_length(o.max_body_bytes);
  http.set_keep_alive_timeout(2);
  http.set_read_timeout(30);
  http.set_write_timeout(30);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which would let a second server bind the same port
  // and silently take half of the connections.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  install_routes(http, st);
  if (!http.bind_to_port(o.host, o.port)) {
    fmt::print(stderr, "wgrt: error: cannot listen on {}:{} (in use, or not an address of this host): pick another --port or --host\n",
               o.host, o.port);
    return 1;
  }
  std::thread listener([&] { http.listen_after_bind(); });
  log(fmt::format("listening on http://{}:{} (loading {})", o.host, o.port, printable(o.llm.model)));

  std::atomic<bool> quit{false};
  std::atomic<int> code{0};
  std::thread signals([&] {
    timespec tick{0, 200 * 1000 * 1000};
    while (!quit.load()) {
      if (sigtimedwait(&sigs, nullptr, &tick) < 0) continue;
      log("stopping: no new requests, draining the running ones");
      st.phase = Phase::Draining;
      if (Scheduler* s = st.scheduler.load()) s->shutdown();
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(o.drain_seconds * 1000));
      while (std::chrono::steady_clock::now() < deadline) {
        Scheduler* s = st.scheduler.load();
        const bool idle = (!s || s->wait_idle(std::chrono::milliseconds(50))) && st.in_flight.load() == 0;
        if (idle) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (st.in_flight.load() > 0) log(fmt::format("drain timeout: {} requests still running are cut off", st.in_flight.load()));
      st.stopped = true;  // handlers still waiting give up (their jobs are cancelled)
      http.stop();
      return;
    }
  });

  std::unique_ptr<models::BatchLlm> llm;
  std::unique_ptr<Scheduler> sched;
  try {
    llm = models::BatchLlm::load(o.llm, o.parallel);
    st.tmpl = resolve_chat_template(*llm, o.chat_template);
    sched = std::make_unique<Scheduler>(*llm, o.queue);
    st.llm = llm.get();
    st.scheduler = sched.get();
    Phase loading = Phase::Loading;
    if (st.phase.compare_exchange_strong(loading, Phase::Ready))
      log(fmt::format("model loaded in {:.2f} s: {}", llm->load_seconds(), llm->description()));
    else
      sched->shutdown();
  } catch (const std::exception& e) {
    fmt::print(stderr, "wgrt: error: {}\n", e.what());
    code = 1;
    st.phase = Phase::Draining;
    st.stopped = true;
    http.stop();
  }
  listener.join();
  quit = true;
  signals.join();
  st.scheduler = nullptr;
  sched.reset();  // fails whatever is left (after a drain timeout)
  st.llm = nullptr;
  if (code == 0) log("stopped");
  return code;
}

}  // namespace wgrt::serve
