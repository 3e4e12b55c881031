// Validated vocabulary storage shared by SpmTokenizer and BpeTokenizer: token texts, types, text -> id lookup,
// and splitting of special-token texts out of an input (llama.cpp's tokenizer_st_partition).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/tokenizer.h"

namespace wgrt::text {

class VocabTable {
 public:
  // Limits: 1 <= tokens.size() <= kMaxTokens; token_types empty (all Normal) or one per token with values 0..6;
  // bos/eos/unk -1 or a valid id. Throws InvalidArgument naming `who` otherwise.
  // Special texts split out of inputs: UserDefined tokens always; Control and Unknown ones too when parse_special.
  VocabTable(std::vector<std::string> tokens, std::vector<int32_t> token_types, int32_t bos, int32_t eos,
             int32_t unk, bool parse_special, const char* who);
  // index_ holds views into tokens_' strings: copying would dangle them, moving keeps them valid.
  VocabTable(const VocabTable&) = delete;
  VocabTable& operator=(const VocabTable&) = delete;
  VocabTable(VocabTable&&) = default;

  static constexpr std::size_t kMaxTokens = 1u << 24;

  int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
  const std::string& text(int32_t id) const { return tokens_[static_cast<std::size_t>(id)]; }
  TokenType type(int32_t id) const { return types_[static_cast<std::size_t>(id)]; }
  // Id of the token whose text is exactly `s` (the first such id if duplicated), or -1.
  int32_t find(std::string_view s) const;
  int32_t bos() const { return bos_; }
  int32_t eos() const { return eos_; }
  int32_t unk() const { return unk_; }

  // A piece of input: a special token (token >= 0) or raw text to tokenize (token == -1).
  struct Fragment {
    int32_t token;
    std::string_view text;
  };
  // Splits `text` at special-token texts as llama.cpp's tokenizer_st_partition: special tokens are taken longest
  // text first (equal lengths: lower id first), each splitting every raw fragment left so far at all its
  // non-overlapping occurrences, left to right. A token with lstrip/rstrip drops the ASCII white space (" \t\n\v\f\r")
  // that touches it from the raw fragment on that side. Empty raw fragments are not emitted.
  std::vector<Fragment> split_special(std::string_view text) const;

  // llama.cpp's per-model strip attributes (it keys them on GGUF general.name, general.architecture and
  // tokenizer.ggml.pre): Phi-3 (name contains "phi-3"/"phi3"): rstrip on every Control/UserDefined/Unknown token
  // and "</s>", not on "<unk>", "<s>", "<|endoftext|>"; jina-v2-{de,es,code} pre or nomic-bert-moe/jina-bert-v3
  // architecture: lstrip on "<mask>"; name contains "modern-bert": lstrip on "[MASK]".
  // Call once, before the table is shared between threads (it is the only mutating member).
  void apply_strip_rules(std::string_view general_name, std::string_view general_arch, std::string_view pre);

 private:
  std::vector<std::string> tokens_;
  std::vector<TokenType> types_;
  std::unordered_map<std::string_view, int32_t> index_;  // views into tokens_
  static constexpr uint8_t kLstrip = 1, kRstrip = 2;
  bool is_special(int32_t id, bool parse_special) const;
  std::vector<uint8_t> strip_;                           // kLstrip | kRstrip per token
  std::vector<std::vector<int32_t>> special_by_byte_;    // first byte -> special ids
  int32_t bos_, eos_, unk_;
};

}  // namespace wgrt::text
