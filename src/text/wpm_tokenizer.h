// GGUF "bert" vocabularies: WordPiece (BERT), following llama.cpp's llm_tokenizer_wpm (llama-vocab.cpp).
// Built from a TokenizerSpec (tokenizer.h): tokens (word-initial pieces stored with a leading "▁", continuation
// pieces bare, as llama.cpp's converter writes them), token_types, unk_id (required), bos_id ([CLS]), sep_id
// ([SEP]), add_bos, lowercase / strip_accents (tokenizer.ggml.normalizer.*), parse_special.
//
// encode: optional [CLS]; the input is split at special-token texts (VocabTable::split_special); each raw
// fragment is normalized and cut into words: code points decoded with llama.cpp's lossy UTF-8 rule; with
// strip_accents each is replaced by the first code point of its NFD and marks (\p{M}) are dropped; white space
// ends a word; NUL, U+FFFD and \p{C} are dropped; with lowercase, simple lowercase mapping; punctuation (\p{P}),
// ASCII symbols and CJK ideographs are words of their own. Each word, prefixed with "▁", is covered greedily
// left to right by the longest vocabulary entry (at most the longest token's byte length) starting at each byte;
// if some position has no entry the whole word becomes unk_id. Then [SEP] when add_bos (llama.cpp's add_special).
//
// token_bytes: Normal pieces with "▁" -> " "; others their text. decode_piece: "" for Control tokens; the leading
// space of the first piece of a stream is dropped. After construction all members are const and may be called
// from several threads at once.
#pragma once
#include <string>
#include <vector>

#include "text/spec_tokenizer.h"

namespace wgrt::text {

class WpmTokenizer final : public SpecTokenizer {
 public:
  // Throws InvalidArgument for an inconsistent spec (sizes, ids; no unk_id).
  explicit WpmTokenizer(TokenizerSpec spec);

  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string token_bytes(int32_t id) const override;
  std::string decode_piece(int32_t prev, int32_t id) const override;

  // The words llama.cpp's WPM preprocess makes of `text` (for tests).
  std::vector<std::string> words(std::string_view text) const;

 private:
  bool lowercase_, strip_accents_;
  int32_t sep_id_;
  std::size_t max_len_ = 0;
};

}  // namespace wgrt::text
