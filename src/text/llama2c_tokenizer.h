// The tokenizer of Karpathy's llama2.c (run.c `encode`/`decode`, MIT), for tokenizer.bin files such as tok512.bin.
//
// Vocabulary conventions of those files (fixed, as run.c assumes): id 0 "<unk>", id 1 BOS, id 2 EOS, ids 3..258
// the byte pieces "<0x00>".."<0xFF>" (byte b is id b + 3). Pieces are plain text with ordinary spaces.
//
// encode (run.c): optional BOS; if the text is non-empty, the piece " " (dummy prefix); then each UTF-8 code point
// (a lead byte plus up to 3 continuation bytes, run.c's grouping) is looked up as a piece, else emitted as its
// byte tokens; then, repeatedly, the adjacent pair whose concatenated piece text is in the vocabulary with the
// highest score is merged (leftmost on ties), until none is. Done in O(n log n) (greedy_merge.h), not run.c's
// O(n^2) rescans; the result is identical. Deviation: if " " is not a piece, the dummy prefix is byte token 0x20+3
// (run.c would emit id -1). run.c's EOS option is not offered (append eos_id() yourself).
//
// decode_piece (run.c decode): the piece, minus a leading space when prev == BOS (1), "<0xHH>" -> that byte.
// Deviation: BOS/EOS give "" (run.c stops at BOS and would print EOS's piece).
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer.h"

namespace wgrt::text {

class Llama2cTokenizer final : public Tokenizer {
 public:
  // pieces/scores: the tokenizer.bin entries in file order (same length, at least 259). Throws InvalidArgument.
  Llama2cTokenizer(std::vector<std::string> pieces, std::vector<float> scores);

  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string token_bytes(int32_t id) const override;
  std::string decode_piece(int32_t prev, int32_t id) const override;
  const std::string& piece(int32_t id) const override;
  TokenType token_type(int32_t id) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(pieces_.size()); }
  int32_t bos_id() const override { return 1; }
  int32_t eos_id() const override { return 2; }
  bool add_bos_by_default() const override { return true; }

 private:
  int32_t lookup(const std::string& s) const;
  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string, int32_t> index_;
};

}  // namespace wgrt::text
