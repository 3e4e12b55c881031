// GGUF "llama" vocabularies: SentencePiece-style BPE with scores, following llama.cpp's llm_tokenizer_spm
// (llama-vocab.cpp) and its LLAMA_VOCAB_TYPE_SPM branch of tokenize. Built from a TokenizerSpec (tokenizer.h,
// which lists the GGUF keys): tokens, scores (required, one per token), token_types, bos/eos/unk ids, add_bos,
// add_space_prefix, parse_special.
//
// encode: optional BOS; the input is split at special-token texts (VocabTable::split_special); each raw fragment
// that is first or follows a special token gets a leading " " when add_space_prefix; spaces become U+2581 "▁";
// the fragment starts as one symbol per UTF-8 character (llama.cpp's lead-byte length, clamped to the end); the
// adjacent pair whose concatenated text is a token with the highest score merges first (leftmost on ties),
// until none can; each final symbol is its token if its text is one, else one "<0xHH>" byte token per byte
// (unk_id if the vocabulary lacks that byte piece; dropped if there is no unk either). Empty text: just BOS.
//
// token_bytes: Normal/Unused/Undefined pieces with "▁" -> " "; Byte pieces -> the byte; others -> their text.
// decode_piece: "" for Control tokens; drops one leading space when add_space_prefix and prev is BOS or -1.
#pragma once
#include <string>
#include <vector>

#include "text/spec_tokenizer.h"

namespace wgrt::text {

class SpmTokenizer final : public SpecTokenizer {
 public:
  // Throws InvalidArgument for an inconsistent spec (sizes, type values, ids out of range, non-finite scores).
  explicit SpmTokenizer(TokenizerSpec spec);

  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string token_bytes(int32_t id) const override;
  std::string decode_piece(int32_t prev, int32_t id) const override;

 private:
  void encode_raw(std::string_view text, bool prefix, std::vector<int32_t>& out) const;
  std::vector<float> scores_;
  int32_t byte_ids_[256];
  bool add_space_prefix_;
};

}  // namespace wgrt::text
