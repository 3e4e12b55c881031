// libFuzzer: the OpenAI request parser of wgrt serve (src/serve/openai.h) on arbitrary bodies. The first byte
// picks the endpoint (even: chat completions, odd: completions); the rest is the body. parse_request either
// returns a request within its documented ranges or throws ApiError 400; nothing else escapes.
#include <cmath>
#include <cstdlib>
#include <string>

#include "serve/openai.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool chat = data[0] % 2 == 0;
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    wgrt::serve::ParsedRequest r = wgrt::serve::parse_request(body, chat);
    const wgrt::serve::GenParams& g = r.params;
    if (chat == r.messages.empty()) std::abort();
    if (!(g.max_tokens == -1 || g.max_tokens >= 1)) std::abort();
    if (!(g.temperature >= 0 && g.temperature <= 2) || !(g.top_p > 0 && g.top_p <= 1) || !(g.min_p >= 0 && g.min_p <= 1)) std::abort();
    if (g.top_k < 0 || g.stop.size() > 16) std::abort();
    for (const std::string& s : g.stop)
      if (s.empty()) std::abort();
  } catch (const wgrt::serve::ApiError& e) {
    if (e.status != 400) std::abort();
  }
  return 0;
}
