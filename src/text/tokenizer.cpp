#include "text/tokenizer.h"

#include <fmt/format.h>

#include <wgrt/error.h>

#include "text/bpe_tokenizer.h"
#include "text/spm_tokenizer.h"
#include "util/printable.h"

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
  if (spec.model == "llama") return std::make_unique<SpmTokenizer>(std::move(spec));
  if (spec.model == "gpt2") return std::make_unique<BpeTokenizer>(std::move(spec));
  throw Unsupported(fmt::format("tokenizer: tokenizer.ggml.model '{}' is not supported (need 'llama' or 'gpt2')",
                                printable(spec.model)));
}

}  // namespace wgrt::text
