#include "text/tokenizer.h"

#include <fmt/format.h>

#include <wgrt/error.h>

#include "text/bpe_tokenizer.h"
#include "text/spm_tokenizer.h"
#include "util/printable.h"
#include "text/wpm_tokenizer.h"

namespace wgrt::text {

void Tokenizer::check_id(int32_t id, const char* what) const {
  if (id < 0 || id >= vocab_size()) {
    throw InvalidArgument(fmt::format("tokenizer: {} {} out of range [0, {})", what, id, vocab_size()));
  }
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
  std::string out;
  int32_t prev = -1;
  for (int32_t id : ids) {
    out += decode_piece(prev, id);
    prev = id;
  }
  return out;
}

std::unique_ptr<Tokenizer> make_tokenizer(TokenizerSpec spec) {
  const std::string& m = spec.model;
  if (m == "llama") return std::make_unique<SpmTokenizer>(std::move(spec));
  if (m == "gpt2" || m == "gemma4") return std::make_unique<BpeTokenizer>(std::move(spec));
  if (m == "bert") return std::make_unique<WpmTokenizer>(std::move(spec));
  const char* what = m == "t5"                           ? " (Unigram, T5-style)"
                     : m == "rwkv"                       ? " (RWKV trie)"
                     : m == "plamo2"                     ? " (PLaMo-2)"
                     : m == "hybriddna"                  ? " (DNA k-mers)"
                     : m == "whitespace"                 ? " (whitespace word list)"
                     : (m == "none" || m == "no_vocab")  ? " (the file has no vocabulary)"
                                                         : " (unknown to llama.cpp too)";
  throw Unsupported(fmt::format("tokenizer.ggml.model '{}'{} is not supported; wgrt tokenizes 'llama' (SentencePiece "
                                "BPE), 'gpt2' and 'gemma4' (BPE) and 'bert' (WordPiece) vocabularies",
                                m, what));
}

}  // namespace wgrt::text
