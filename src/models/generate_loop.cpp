// Llm::generate and Llm::generate_tokens (include/wgrt/llm.h): the decode loop over Llm::eval, shared by
// `wgrt generate`, ChatSession and servers. Greedy decoding runs the GPU-resident loop (Llm::decode_submit:
// each step's argmax feeds the next step's token on the GPU, the CPU records step N+1 while step N runs and
// reads the argmaxes back one step behind), or, with the tuning's decode_pipeline off, reads back one argmax
// per token before the next step. Sampling (temperature > 0) draws on the GPU when the tuning's gpu_sampling
// is on (Llm::set_sampling: the same two loops, the draw in place of the argmax), else reads the logits and
// draws with text::Sampler. Text goes through Utf8Stream (whole characters) then StopMatcher (stop strings
// across token boundaries) before on_text.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "models/decode_sampling.h"
#include "text/sampler.h"
#include "text/stop_strings.h"
#include "text/utf8_stream.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::unique_ptr<text::Sampler> make_sampler(const GenerateOptions& g) {
  if (g.max_tokens < -1) throw InvalidArgument("max_tokens must be >= 0, or -1 for no limit");
  if (!std::isfinite(g.temperature) || g.temperature < 0) throw InvalidArgument("temperature must be a finite number >= 0");
  if (!std::isfinite(g.repetition_penalty) || g.repetition_penalty <= 0)
    throw InvalidArgument("repetition_penalty must be a finite number > 0");
  if (g.temperature == 0) {
    if (g.repetition_penalty != 1.0f) throw InvalidArgument("repetition_penalty needs sampling (temperature > 0)");
    return nullptr;
  }
  return std::make_unique<text::Sampler>(models::sampler_config(g));
}

bool cancelled(const GenerateOptions& g) { return g.cancel && g.cancel->load(); }

}  // namespace

GenerateStats Llm::generate(std::string_view prompt, const GenerateOptions& g,
                            const std::function<void(std::string_view)>& on_text) {
  std::vector<int32_t> ids = tokenize(prompt, g.add_bos);
  if (ids.empty()) throw InvalidArgument("the prompt is empty and no BOS token was added: nothing to start from");
  return generate_tokens(std::move(ids), g, on_text, /*reuse_cache=*/false);
}

GenerateStats Llm::generate_tokens(std::vector<int32_t> seq, const GenerateOptions& g,
                                   const std::function<void(std::string_view)>& on_text, bool reuse_cache) {
  if (seq.empty()) throw InvalidArgument("generate: empty token sequence: nothing to start from");
  // Context rule (llm.h): a prompt of n <= C tokens can be followed by up to C - n + 1 new tokens (the last
  // one is never fed back, so it needs no cache slot); a prompt of exactly C tokens gives one token.
  if (int64_t(seq.size()) > context())
    throw LimitError(fmt::format("the prompt has {} tokens but the context holds {}: shorten the prompt or raise --ctx",
                                 seq.size(), context()));
  std::unique_ptr<text::Sampler> sampler = make_sampler(g);
  // GPU sampling: the draw replaces the argmax in eval and decode_submit; the Llm's sampling state is held
  // (exclusive) and turned off again on every way out.
  std::unique_lock<std::recursive_mutex> gpu_session;
  struct SamplingOff {
    Llm* llm = nullptr;
    ~SamplingOff() {
      if (llm) try {
          while (llm->decode_pending() > 0) llm->decode_take();
          llm->set_sampling(nullptr);
        } catch (const Error&) {
        }
    }
  } sampling_off;
  if (sampler && gpu_sampling()) {
    gpu_session = exclusive();
    if (set_sampling(&g)) {
      sampling_off.llm = this;
      sampler.reset();
    }
  }
  const std::vector<int32_t>& ends = special_tokens().end_of_turn;
  GenerateStats st;
  auto emit = [&](const std::string& s) {
    if (s.empty()) return;
    st.text += s;
    on_text(s);
  };
  auto t0 = Clock::now();
  EvalOptions eo{.reuse_cache = reuse_cache, .want_logits = sampler != nullptr, .cancel = g.cancel,
                 .on_prefill = g.on_prefill};
  EvalResult ev = eval(seq, eo);
  st.cached_tokens = ev.reused;
  st.prompt_tokens = int(seq.size()) - ev.reused;
  st.prefill_seconds = seconds_since(t0);
  st.stop_reason = "max_tokens";
  if (ev.cancelled) {
    st.stop_reason = "cancelled";
    return st;
  }
  eo.reuse_cache = true;
  eo.on_prefill = nullptr;
  // A negative argmax or a non-finite logit: the model computed NaN/Inf (the sampler would refuse them too).
  auto numeric_error = [&] {
    return NumericError(fmt::format("the model produced NaN or infinite logits at generated token {} (position {}); "
                                    "its weights may hold NaN/Inf values (wgrt generate --check-weights scans them)",
                                    st.generated_tokens, seq.size() - 1));
  };
  auto pick = [&](EvalResult& r) {
    const bool bad = sampler ? std::any_of(r.logits.begin(), r.logits.end(), [](float v) { return !std::isfinite(v); })
                             : r.argmax < 0;
    if (bad) throw numeric_error();
    return sampler ? sampler->sample(r.logits, seq) : r.argmax;  // r.argmax: the GPU draw with set_sampling on
  };
  int32_t next = g.max_tokens != 0 ? pick(ev) : -1;
  text::Utf8Stream utf8;
  text::StopMatcher stops(g.stop);
  int32_t prev = seq.back();
  auto t1 = Clock::now();
  // The i-th generated token: true when it is to be run for the next one (it is not the last).
  auto accept = [&](int32_t tok, int i) {
    if (cancelled(g)) {
      st.stop_reason = "cancelled";
      return false;
    }
    if (std::binary_search(ends.begin(), ends.end(), tok)) {
      st.stop_reason = "eos";
      return false;
    }
    st.tokens.push_back(tok);
    ++st.generated_tokens;
    emit(stops.push(utf8.push(token_piece(prev, tok))));
    if (stops.found()) {
      st.stop_reason = "stop";
      return false;
    }
    prev = tok;
    if (i + 1 == g.max_tokens) return false;
    if (int64_t(seq.size()) >= context()) {
      st.stop_reason = "context";
      return false;
    }
    return true;
  };
  if (sampler || !decode_pipelined()) {
    for (int i = 0; g.max_tokens < 0 || i < g.max_tokens; ++i) {
      if (!accept(next, i)) break;
      seq.push_back(next);
      ev = eval(seq, eo);
      if (ev.cancelled) {  // seen before the token ran: no output to pick from
        st.stop_reason = "cancelled";
        break;
      }
      next = pick(ev);
    }
  } else if (g.max_tokens != 0 && accept(next, 0)) {
    // The GPU-resident loop: the step of token i is submitted (its token fed from step i-1's argmax on the
    // GPU) before token i is read back, so the GPU runs it while the CPU waits, emits text and records the next.
    std::unique_lock<std::recursive_mutex> session = exclusive();  // other threads' steps wait (llm.h)
    struct Drain {  // leaves no step pending, also when a step or the text callback throws
      Llm& llm;
      ~Drain() {
        while (llm.decode_pending() > 0) try {
            llm.decode_take();
          } catch (const Error&) {
            break;
          }
      }
    } drain{*this};
    seq.push_back(next);
    decode_submit(next, int(seq.size()) - 1);
    for (int i = 1;; ++i) {
      // Token i may run only if it is not the last one and a position is left (accept's last two rules).
      const bool runs = (g.max_tokens < 0 || i + 1 < g.max_tokens) && int64_t(seq.size()) < context();
      if (runs) decode_submit(-1, int(seq.size()));
      const int32_t tok = decode_take();
      if (tok < 0) throw numeric_error();
      if (!accept(tok, i)) break;
      seq.push_back(tok);
    }
  }
  if (!stops.found()) {
    emit(stops.push(utf8.flush()));
    if (stops.found()) st.stop_reason = "stop";
    emit(stops.flush());
  }
  st.stop_string = stops.matched();
  st.decode_seconds = seconds_since(t1);
  return st;
}

}  // namespace wgrt
