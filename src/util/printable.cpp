#include "util/printable.h"

#include <cstdint>

namespace wgrt {

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (Unicode Table 3-7), or 0 if ill-formed.
size_t utf8_len(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

void hex_escape(std::string& out, uint8_t c) {
  static const char* kHex = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

std::string escape(std::string_view s, size_t max_bytes, bool escape_backslash) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && i < max_bytes) {
    const auto c = static_cast<uint8_t>(s[i]);
    const size_t n = utf8_len(s, i);
    if (n == 0 || c < 0x20 || c == 0x7F || (n == 2 && c == 0xC2 && static_cast<uint8_t>(s[i + 1]) < 0xA0)) {
      if (n == 2 && c == 0xC2) {  // a C1 control: both bytes escaped
        hex_escape(out, c);
        hex_escape(out, static_cast<uint8_t>(s[i + 1]));
        i += 2;
      } else {
        hex_escape(out, c);
        ++i;
      }
      continue;
    }
    if (i + n > max_bytes) break;  // do not cut a character
    if (c == '\\' && escape_backslash) out += '\\';
    out.append(s.substr(i, n));
    i += n;
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace

std::string printable(std::string_view s, size_t max_bytes) { return escape(s, max_bytes, true); }

std::string one_line_message(std::string_view s, size_t max_bytes) { return escape(s, max_bytes, false); }

}  // namespace wgrt
