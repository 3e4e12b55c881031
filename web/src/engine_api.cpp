// Entry points of the browser build, called by web/wgrt.js through Module.ccall (the ones that wait on the GPU
// with {async: true}: they suspend through ASYNCIFY and resolve a promise).
//
// One engine per wasm instance: wgrt_web_load replaces the loaded model. Errors never escape as exceptions:
// a call returns 0 (or null) and wgrt_web_error() holds "wgrt: error: ..." (the CLI's wording).
// Results are JSON strings owned by this file, valid until the next call.
// Single-threaded (the browser build has no threads); calls must not overlap (web/wgrt.js queues them).
#include <emscripten.h>
#include <fmt/format.h>

#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/gguf.h"
#include "models/tokenizer_loader.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace {

std::unique_ptr<wgrt::Llm> g_llm;
std::string g_error, g_result;

template <typename F>
const char* guarded(F&& f) {
  g_error.clear();
  try {
    g_result = f();
    return g_result.c_str();
  } catch (const std::exception& e) {
    g_error = fmt::format("wgrt: error: {}", e.what());
  } catch (...) {
    g_error = "wgrt: error: unknown failure";
  }
  return nullptr;
}

}  // namespace

// Streams generated text to the page: Module.wgrtOnText(string), set by web/wgrt.js for one generate call.
EM_JS(void, wgrt_web_on_text, (const char* s, int n), {
  if (Module.wgrtOnText) Module.wgrtOnText(UTF8ToString(s, n));
});

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* wgrt_web_error() { return g_error.c_str(); }

// Loads a model from the in-memory file system (web/wgrt.js writes the fetched bytes there).
// tokenizer: "" for GGUF (the vocabulary is embedded). context: 0 = the model's (at most 4096).
// Returns JSON {"description", "context", "vocab", "gpu_bytes", "load_seconds", "adapter", "features"} or null.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_load(const char* model, const char* tokenizer, int context) {
  return guarded([&] {
    g_llm.reset();
    wgrt::LlmOptions o;
    o.model = model;
    o.tokenizer = tokenizer;
    o.context = context;
    g_llm = wgrt::Llm::load(o);
    nlohmann::json j = {{"description", g_llm->description()},
                        {"context", g_llm->context()},
                        {"vocab", g_llm->vocab_size()},
                        {"gpu_bytes", g_llm->gpu_bytes()},
                        {"load_seconds", g_llm->load_seconds()}};
    return j.dump();
  });
}

// Generates as `wgrt generate` does: the prompt tokenized (BOS when add_bos), then up to max_tokens new tokens,
// streamed through wgrt_web_on_text. temperature 0: greedy. Returns JSON {"text", "tokens", "prompt_tokens",
// "generated_tokens", "prefill_tok_s", "decode_tok_s", "stop_reason", "prompt_ids"} or null.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_generate(const char* prompt, int max_tokens, double temperature, int top_k,
                                                    double top_p, double seed, int add_bos) {
  return guarded([&] {
    if (!g_llm) throw wgrt::InvalidArgument("no model is loaded: call load() first");
    wgrt::GenerateOptions g;
    g.max_tokens = max_tokens;
    g.temperature = float(temperature);
    g.top_k = top_k;
    g.top_p = float(top_p);
    g.seed = uint64_t(seed);
    g.add_bos = add_bos != 0;
    std::vector<int32_t> ids = g_llm->tokenize(prompt, g.add_bos);
    if (ids.empty()) throw wgrt::InvalidArgument("the prompt is empty and no BOS token was added: nothing to start from");
    wgrt::GenerateStats st = g_llm->generate_tokens(
        ids, g, [](std::string_view s) { wgrt_web_on_text(s.data(), int(s.size())); }, /*reuse_cache=*/false);
    nlohmann::json j = {{"text", st.text},
                        {"tokens", st.tokens},
                        {"prompt_ids", ids},
                        {"prompt_tokens", st.prompt_tokens},
                        {"generated_tokens", st.generated_tokens},
                        {"prefill_tok_s", st.prefill_tok_s()},
                        {"decode_tok_s", st.decode_tok_s()},
                        {"prefill_seconds", st.prefill_seconds},
                        {"decode_seconds", st.decode_seconds},
                        {"stop_reason", st.stop_reason}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  });
}

EMSCRIPTEN_KEEPALIVE void wgrt_web_dispose() { g_llm.reset(); }

// Tokenizes `text` with the vocabulary of the GGUF file at `path` (no GPU; the tokenizer is kept for the next
// call with the same path), as llama.cpp's test-tokenizer-0 does: add_special false, parse_special false.
// Returns JSON [ids...] or null. For the tokenizer conformance run of the browser build (web/tests/vocab_node.mjs).
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_tokenize_vocab(const char* path, const char* text, int len) {
  static std::string cached_path;
  static std::unique_ptr<wgrt::text::Tokenizer> cached;
  return guarded([&] {
    if (!cached || cached_path != path) {
      cached.reset();
      cached = wgrt::models::tokenizer_from_gguf(wgrt::GgufFile::open(path), /*parse_special=*/false);
      cached_path = path;
    }
    return nlohmann::json(cached->encode(std::string_view(text, size_t(len)), false)).dump();
  });
}

}  // extern "C"

int main() { return 0; }
