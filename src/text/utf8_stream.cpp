#include "text/utf8_stream.h"

namespace wgrt::text {
namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Expected total length for lead byte c (0 if c cannot start a sequence) and the allowed range of the 2nd byte.
std::size_t lead_info(unsigned char c, unsigned char* lo, unsigned char* hi) {
  *lo = 0x80;
  *hi = 0xBF;
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) return 2;
  if (c < 0xF0) {
    if (c == 0xE0) *lo = 0xA0;
    if (c == 0xED) *hi = 0x9F;
    return 3;
  }
  if (c < 0xF5) {
    if (c == 0xF0) *lo = 0x90;
    if (c == 0xF4) *hi = 0x8F;
    return 4;
  }
  return 0;
}
}  // namespace

std::string Utf8Stream::push(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  const std::string& s = pending_;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    unsigned char lo, hi;
    const std::size_t need = lead_info(c, &lo, &hi);
    if (need == 1) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (need == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    std::size_t k = 1;  // bytes of the sequence checked so far
    bool bad = false;
    while (k < need && i + k < s.size()) {
      const auto ck = static_cast<unsigned char>(s[i + k]);
      const bool ok = k == 1 ? (ck >= lo && ck <= hi) : (ck >= 0x80 && ck <= 0xBF);
      if (!ok) {
        bad = true;
        break;
      }
      ++k;
    }
    if (bad) {  // maximal subpart s[i, i+k) is ill-formed: one U+FFFD; resume at the offending byte
      out += kReplacement;
      i += k;
      continue;
    }
    if (k < need) break;  // incomplete but still valid so far: hold back
    out.append(s, i, need);
    i += need;
  }
  pending_.erase(0, i);
  return out;
}

std::string Utf8Stream::flush() {
  std::string out = pending_.empty() ? std::string() : std::string(kReplacement);
  pending_.clear();
  return out;
}

std::string sanitize_utf8(std::string_view bytes) {
  Utf8Stream s;
  std::string out = s.push(bytes);
  out += s.flush();
  return out;
}

}  // namespace wgrt::text
