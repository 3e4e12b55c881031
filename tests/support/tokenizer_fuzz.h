// What the tokenizer fuzzer does with one input: byte 0 picks a tokenizer (hand-made SentencePiece, byte-level
// BPE under one of the supported pre-tokenizer names, Gemma-4 style BPE or WordPiece vocabulary; parse_special on
// or off), the rest is the text. Checks, for any bytes: encode returns, every id is in range, decode returns,
// and a byte-level BPE without special tokens in the text decodes back to the text with invalid UTF-8 replaced
// (reencode_utf8_lossy). A broken invariant throws std::logic_error (not a wgrt::Error: a finding). Header-only and
// gtest-free: used by fuzz/fuzz_tokenizer.cpp and tests/host/text_tokenizer_fuzz_test.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "text/bpe_tokenizer.h"
#include "text/pre_table.h"
#include "text/tokenizer.h"
#include "text/unicode_props.h"
#include "wgrt/error.h"

namespace wgrt::test {

namespace fuzz_detail {

inline text::TokenizerSpec bpe_spec(std::string pre) {
  text::TokenizerSpec s;
  s.model = "gpt2";
  for (int b = 0; b < 256; ++b) s.tokens.push_back(text::BpeTokenizer::byte_to_unicode(static_cast<unsigned char>(b)));
  const char* merges[] = {"h e", "l l", "he ll", "hell o", "\xC4\xA0 w", "o r", "\xC4\xA0w or", "1 2", "\xC4\xA0 \xC4\xA0"};
  for (const char* m : merges) {
    s.merges.push_back(m);
    std::string t(m);
    t.erase(t.find(' '), 1);
    s.tokens.push_back(t);
  }
  s.tokens.push_back("<|eot|>");
  s.token_types.assign(s.tokens.size(), 1);
  s.token_types.back() = 3;
  s.bos_id = static_cast<int32_t>(s.tokens.size()) - 1;
  s.pre = std::move(pre);
  return s;
}

inline text::TokenizerSpec spm_spec() {
  text::TokenizerSpec s;
  s.model = "llama";
  s.tokens = {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a", "ab", "<0x41>", "<0xC3>"};
  s.scores = {0, 0, 0, -1, -2, -2, -0.5f, -0.25f, 0, 0};
  s.token_types = {2, 3, 3, 1, 1, 1, 1, 1, 6, 6};
  s.bos_id = 1;
  s.eos_id = 2;
  s.unk_id = 0;
  return s;
}

inline text::TokenizerSpec gemma_spec() {
  text::TokenizerSpec s;
  s.model = "gemma4";
  s.tokens = {"a", "b", "\xE2\x96\x81", "\xE2\x96\x81" "a", "\n", "\n\n", "<0xC3>", "<0xA9>", "ab", "<bos>"};
  s.token_types = {1, 1, 1, 1, 1, 1, 6, 6, 1, 3};
  s.merges = {"\xE2\x96\x81 a", "a b", "\n \n"};
  s.bos_id = 9;
  return s;
}

inline text::TokenizerSpec wpm_spec() {
  text::TokenizerSpec s;
  s.model = "bert";
  s.tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "\xE2\x96\x81hello", "\xE2\x96\x81un", "aff", "able", "\xE2\x96\x81,"};
  s.token_types = {3, 2, 3, 3, 1, 1, 1, 1, 1};
  s.unk_id = 1;
  s.bos_id = 2;
  s.sep_id = 3;
  return s;
}

struct Entry {
  std::unique_ptr<text::Tokenizer> tok;
  bool byte_level;
};

inline const std::vector<Entry>& tokenizers() {
  static const std::vector<Entry> all = [] {
    std::vector<Entry> v;
    for (bool special : {true, false}) {
      auto add = [&](text::TokenizerSpec s, bool byte_level) {
        s.parse_special = special;
        v.push_back({text::make_tokenizer(std::move(s)), byte_level});
      };
      add(spm_spec(), false);
      add(gemma_spec(), false);
      add(wpm_spec(), false);
      for (std::string_view pre : text::pre_names()) {
        const auto p = text::find_pre(pre);
        add(bpe_spec(std::string(pre)), p && p->byte_encode && !p->escape_spaces);
      }
    }
    return v;
  }();
  return all;
}

}  // namespace fuzz_detail

// Number of tokenizers one selector byte chooses among.
inline std::size_t tokenizer_fuzz_choices() { return fuzz_detail::tokenizers().size(); }

// Returns the number of ids produced.
inline std::size_t exercise_tokenizer(std::span<const uint8_t> data) {
  if (data.empty()) return 0;
  const auto& all = fuzz_detail::tokenizers();
  const auto& e = all[data[0] % all.size()];
  const std::string text(reinterpret_cast<const char*>(data.data() + 1), data.size() - 1);
  const bool bos = data[0] & 0x80 ? e.tok->bos_id() >= 0 : false;
  const auto ids = e.tok->encode(text, bos);
  for (int32_t id : ids) {
    if (id < 0 || id >= e.tok->vocab_size()) throw std::logic_error("tokenizer fuzz: id out of range");
  }
  const std::string back = e.tok->decode(ids);
  if (e.byte_level && !bos && text.find("<|eot|>") == std::string::npos && back != text::reencode_utf8_lossy(text)) {
    throw std::logic_error("tokenizer fuzz: byte-level BPE does not round-trip");
  }
  return ids.size();
}

}  // namespace wgrt::test
