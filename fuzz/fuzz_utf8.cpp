// libFuzzer: Utf8Stream. The first byte sets a chunk length (1..16); the rest is pushed in chunks of that
// length, then flushed. Oracle: the streamed output equals sanitize_utf8() of the whole input (streaming must
// not change the result), and pending() never exceeds 3.
#include <cstdlib>
#include <string>
#include <string_view>

#include "text/utf8_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 16;
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  wgrt::text::Utf8Stream s;
  std::string out;
  for (size_t i = 0; i < in.size(); i += chunk) {
    out += s.push(in.substr(i, chunk));
    if (s.pending() > 3) std::abort();
  }
  out += s.flush();
  if (out != wgrt::text::sanitize_utf8(in)) std::abort();
  return 0;
}
