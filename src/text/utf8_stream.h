// Streaming UTF-8 assembly for detokenized output: tokens may carry part of a character (byte-fallback pieces,
// byte-level BPE), so bytes are buffered and only whole characters are released.
//
// Validity follows the Unicode standard's well-formed UTF-8 table (no overlongs, no surrogates D800..DFFF, nothing
// above U+10FFFF). An ill-formed sequence becomes one U+FFFD per maximal subpart (Unicode 'substitution of maximal
// subparts', the WHATWG decoder's behaviour) as soon as it can no longer complete; a still-incomplete tail is held
// back until more bytes arrive, or replaced by one U+FFFD on flush().
#pragma once
#include <string>
#include <string_view>

namespace wgrt::text {

class Utf8Stream {
 public:
  // Adds bytes; returns the well-formed text (with U+FFFD substitutions) that is now final.
  std::string push(std::string_view bytes);
  // Ends the stream: returns U+FFFD if an incomplete sequence is pending (else ""), and resets.
  std::string flush();
  // Bytes held back (0..3).
  std::size_t pending() const { return pending_.size(); }

 private:
  std::string pending_;
};

// Whole-string form: `bytes` with ill-formed sequences replaced as above (push + flush).
std::string sanitize_utf8(std::string_view bytes);

}  // namespace wgrt::text
