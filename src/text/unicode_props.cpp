#include "text/unicode_props.h"

#include <algorithm>

#include "text/utf8.h"

namespace wgrt::text {
namespace {

struct CategoryRange {
  uint32_t first;
  uint8_t category;
};
struct CpPair {
  uint32_t cp, to;
};
struct NfdRange {
  uint32_t first, last, nfd;
};
#include "unicode_tables.inc"  // generated at build time by tools/gen/gen_unicode_tables.cpp

}  // namespace

CpFlags cp_flags(uint32_t cp) {
  CpFlags f;
  if (cp > 0x10FFFF) return f;
  const auto* it = std::upper_bound(std::begin(kCategoryRanges), std::end(kCategoryRanges), cp,
                                    [](uint32_t c, const CategoryRange& r) { return c < r.first; });
  f.category = static_cast<CpFlags::Category>((it - 1)->category);
  f.whitespace = (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
                 (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
                 cp == 0x3000;
  return f;
}

uint32_t cp_tolower(uint32_t cp) {
  const auto* it = std::lower_bound(std::begin(kLowercase), std::end(kLowercase), cp,
                                    [](const CpPair& p, uint32_t c) { return p.cp < c; });
  return it != std::end(kLowercase) && it->cp == cp ? it->to : cp;
}

uint32_t cp_nfd_first(uint32_t cp) {
  const auto* it = std::upper_bound(std::begin(kNfdFirst), std::end(kNfdFirst), cp,
                                    [](uint32_t c, const NfdRange& r) { return c < r.first; });
  if (it == std::begin(kNfdFirst)) return cp;
  --it;
  return cp <= it->last ? it->nfd : cp;
}

std::vector<uint32_t> decode_utf8_lossy(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  const std::size_t n = s.size();
  auto cont = [&](std::size_t i) { return i < n && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(s[i]);
    auto b = [&](std::size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
    if (c < 0x80) {
      out.push_back(c);
      i += 1;
    } else if ((c & 0xE0) == 0xC0 && cont(i + 1)) {
      out.push_back(((c & 0x1Fu) << 6) | b(1));
      i += 2;
    } else if ((c & 0xF0) == 0xE0 && cont(i + 1) && cont(i + 2)) {
      out.push_back(((c & 0x0Fu) << 12) | (b(1) << 6) | b(2));
      i += 3;
    } else if ((c & 0xF8) == 0xF0 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
      const uint32_t cp = ((c & 0x07u) << 18) | (b(1) << 12) | (b(2) << 6) | b(3);
      if (cp > 0x10FFFF) {  // llama.cpp throws re-encoding these; one U+FFFD for the lead byte instead
        out.push_back(0xFFFD);
        i += 1;
        continue;
      }
      out.push_back(cp);
      i += 4;
    } else {
      out.push_back(0xFFFD);
      i += 1;
    }
  }
  return out;
}

std::string reencode_utf8_lossy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (uint32_t cp : decode_utf8_lossy(s)) append_utf8(out, cp);
  return out;
}

}  // namespace wgrt::text
