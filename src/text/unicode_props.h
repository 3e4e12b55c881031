// Unicode character data for the tokenizers, as llama.cpp's unicode.cpp uses it (its tables are generated from
// UnicodeData.txt; ours are generated at build time from ICU, Debian libicu-dev, by tools/gen/gen_unicode_tables:
// Unicode 15.0 on Debian 12; ICU is a build dependency only). Lookups are binary searches in those tables.
//
// decode_utf8_lossy follows llama.cpp's unicode_cpts_from_utf8 exactly, including what it does not check: a lead
// byte followed by the right number of continuation bytes is decoded without rejecting overlong forms or
// surrogates; anything else (a stray continuation byte, a truncated sequence, a 0xF8..0xFF byte) becomes one
// U+FFFD per offending byte. One deviation: a 4-byte form above U+10FFFF (llama.cpp throws on
// re-encoding it) is a U+FFFD for its lead byte, its continuation bytes then one U+FFFD each. All functions are pure and may be called from any thread.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::text {

// One general-category class per code point (llama.cpp's unicode_cpt_flags categories), plus White_Space.
struct CpFlags {
  enum Category : uint8_t { Undefined, Number, Letter, Separator, Mark, Punctuation, Symbol, Control };
  Category category = Undefined;  // Cn -> Undefined; C[cfos] -> Control; L*, M*, N*, P*, S*, Z* as named
  bool whitespace = false;        // Unicode White_Space (9-D, 20, 85, A0, 1680, 2000-200A, 2028/9, 202F, 205F, 3000)
};
// Flags of `cp` (any uint32; values above U+10FFFF are Undefined).
CpFlags cp_flags(uint32_t cp);
// Unicode simple lowercase mapping (UnicodeData field 13); `cp` itself when it has none.
uint32_t cp_tolower(uint32_t cp);
// First code point of the canonical decomposition (NFD) of `cp` ("é" -> "e", Hangul syllable -> its leading
// jamo); `cp` when it does not decompose. llama.cpp's unicode_cpts_normalize_nfd keeps only this code point.
uint32_t cp_nfd_first(uint32_t cp);

// UTF-8 -> code points, llama.cpp's lossy rules (above).
std::vector<uint32_t> decode_utf8_lossy(std::string_view s);
// `s` re-encoded after decode_utf8_lossy (invalid bytes become EF BF BD). Identity on valid UTF-8.
std::string reencode_utf8_lossy(std::string_view s);

}  // namespace wgrt::text
