// GGUF "gpt2" vocabularies: byte-level BPE as GPT-2 / HF tokenizers and llama.cpp's llm_tokenizer_bpe.
// Built from a TokenizerSpec (tokenizer.h lists the GGUF keys): tokens, token_types, merges (required),
// bos/eos/unk ids, add_bos, pre (pretokenizer.h), parse_special. scores and add_space_prefix are ignored.
//
// Byte <-> unicode table (GPT-2 bytes_to_unicode): bytes '!'..'~', 0xA1..0xAC, 0xAE..0xFF stand for the code point
// of the same value; the other 68 bytes, in increasing order, for U+0100, U+0101, ... (so ' ' is 'Ġ' U+0120).
//
// encode: optional BOS; the input is split at special-token texts (Control/Unknown tokens when parse_special,
// UserDefined always; leftmost-longest), each special becoming its id; every raw fragment is split into words by
// the pre-tokenizer; each word's bytes are mapped to table characters; if ignore_merges (Llama-3) and the whole
// mapped word is a token, that token is emitted; otherwise the word starts as one symbol per character and the
// adjacent pair with the lowest merge rank (index in `merges`) merges first (leftmost on ties) until none can;
// each final symbol is emitted as its token, or (should the vocabulary lack it) per character, each character's
// token, else unk_id, else nothing (llama.cpp drops it too).
//
// token_bytes: Normal tokens mapped back through the table (characters outside it pass through as UTF-8);
// other types: their text. decode_piece: "" for Control tokens, else token_bytes (no space stripping).
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "text/pretokenizer.h"
#include "text/spec_tokenizer.h"

namespace wgrt::text {

class BpeTokenizer final : public SpecTokenizer {
 public:
  // Throws InvalidArgument for an inconsistent spec (a merge without a space separator, sizes, ids), Unsupported
  // for an unknown pre name.
  explicit BpeTokenizer(TokenizerSpec spec);

  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string token_bytes(int32_t id) const override;
  std::string decode_piece(int32_t prev, int32_t id) const override;

  // The table character (UTF-8) standing for byte b, and its inverse (-1 when cp is not a table character).
  static const std::string& byte_to_unicode(unsigned char b);
  static int unicode_to_byte(uint32_t cp);

 private:
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;
  PreTokenizer pre_;
  std::unordered_map<std::string, int32_t> ranks_;  // "left right" -> merge rank
  bool ignore_merges_;
};

}  // namespace wgrt::text
