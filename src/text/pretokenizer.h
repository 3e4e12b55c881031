// Regex pre-tokenizer for byte-level BPE (llama.cpp unicode_regex_split semantics), on PCRE2 with UTF + UCP
// (Unicode properties for \p{L}, \p{N}, \s) and PCRE2_MATCH_INVALID_UTF (invalid UTF-8 never matches a
// character class; it is kept, unmatched, so every input byte survives).
//
// A pre-tokenizer is a list of regexes applied in turn: each one splits every current fragment into its matches
// and the unmatched stretches between them (both kept, in order); a regex only sees one fragment at a time, so
// lookaheads stop at fragment ends. The fragments of the last pass are the words handed to BPE.
//
// Empty matches are skipped (the search moves on one byte). `$` matches only at the very end of a fragment
// (PCRE2_DOLLAR_ENDONLY, as ECMAScript regexes in llama.cpp).
//
// Names (GGUF tokenizer.ggml.pre) -> regex lists: pre_table.h (llama.cpp's table). Other names: Unsupported.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wgrt::text {

class PreTokenizer {
 public:
  // Compiles the regexes (Perl syntax). Throws InvalidArgument naming the pattern if one does not compile.
  explicit PreTokenizer(const std::vector<std::string>& patterns);
  // By GGUF pre name (table above). Throws Unsupported for an unknown name.
  static PreTokenizer from_name(std::string_view pre);
  // The one-line message for a refused pre name (known to llama.cpp but unsupported, or unknown).
  static std::string unsupported_pre_message(std::string_view pre);

  ~PreTokenizer();
  PreTokenizer(PreTokenizer&&) noexcept;
  PreTokenizer& operator=(PreTokenizer&&) noexcept;

  // Splits `text` into consecutive non-empty fragments covering it exactly: (offset, length) pairs in bytes.
  std::vector<std::pair<std::size_t, std::size_t>> split(std::string_view text) const;
  // Same, as strings (for tests).
  std::vector<std::string> split_strings(std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wgrt::text
