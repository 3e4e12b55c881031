// GGUF "gpt2" (and "gemma4") vocabularies: byte-level BPE as GPT-2 / HF tokenizers, following llama.cpp's
// llm_tokenizer_bpe (llama-vocab.cpp). Built from a TokenizerSpec (tokenizer.h lists the GGUF keys): tokens,
// token_types, merges (required, non-empty), bos/eos/unk ids, add_bos, pre (pre_table.h), parse_special.
// scores and add_space_prefix are ignored. model "gemma4" always uses the "gemma4" pre-tokenizer.
//
// Byte <-> unicode table (GPT-2 bytes_to_unicode): bytes '!'..'~', 0xA1..0xAC, 0xAE..0xFF stand for the code point
// of the same value; the other 68 bytes, in increasing order, for U+0100, U+0101, ... (so ' ' is 'Ġ' U+0120).
//
// encode: optional BOS; the input is split at special-token texts (VocabTable::split_special); each raw fragment:
// spaces -> "▁" if the pre escapes spaces (Gemma-4); invalid UTF-8 -> U+FFFD per bad byte (unicode_props.h,
// llama.cpp's rule); split into words by the pre-tokenizer's regexes; each word's bytes mapped to table characters
// (unless the pre works on raw UTF-8); if ignore_merges, or (Gemma-4) the word is all newlines, and the whole word
// is a token, that token; otherwise one symbol per UTF-8 character, the adjacent pair with the lowest merge rank
// (index in `merges`) merging first (leftmost on ties) until none can; each final symbol is its token, or, should
// the vocabulary lack it, per byte: the token whose text is that one byte (with byte mapping) or "<0xHH>"
// (without), or nothing (llama.cpp drops it too).
//
// token_bytes: Normal tokens mapped back through the table (characters outside it pass through as UTF-8), or for
// raw-UTF-8 vocabularies "▁" -> " " and "<0xHH>" byte tokens -> the byte; other types: their text.
// decode_piece: "" for Control tokens, else token_bytes (no space stripping).
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "text/pre_table.h"
#include "text/pretokenizer.h"
#include "text/spec_tokenizer.h"

namespace wgrt::text {

class BpeTokenizer final : public SpecTokenizer {
 public:
  // Throws InvalidArgument for an inconsistent spec (no merges, a merge without a space separator, sizes, ids),
  // Unsupported for a pre name that is unknown or refused (pre_table.h), naming it.
  explicit BpeTokenizer(TokenizerSpec spec);

  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string token_bytes(int32_t id) const override;
  std::string decode_piece(int32_t prev, int32_t id) const override;

  // The table character (UTF-8) standing for byte b, and its inverse (-1 when cp is not a table character).
  static const std::string& byte_to_unicode(unsigned char b);
  static int unicode_to_byte(uint32_t cp);

 private:
  BpeTokenizer(TokenizerSpec& spec, PreSpec pre);
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;
  PreTokenizer pre_;
  std::unordered_map<std::string, int32_t> ranks_;  // "left right" -> merge rank
  bool ignore_merges_, byte_encode_, escape_spaces_, newline_words_;
  int32_t byte_ids_[256] = {};  // "<0xHH>" token ids (-1 if absent), used when !byte_encode_
};

}  // namespace wgrt::text
