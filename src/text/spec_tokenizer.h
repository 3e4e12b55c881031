// Base of the tokenizers built from a TokenizerSpec (the GGUF "llama", "gpt2"/"gemma4" and "bert" vocabularies): owns the
// VocabTable and the add-BOS flag and answers the vocabulary queries of the Tokenizer interface, so the
// subclasses hold only their encoding algorithm.
#pragma once
#include <string>
#include <utility>

#include "text/tokenizer.h"
#include "text/vocab_table.h"

namespace wgrt::text {

class SpecTokenizer : public Tokenizer {
 public:
  const std::string& piece(int32_t id) const override {
    check_id(id, "token id");
    return vocab_.text(id);
  }
  TokenType token_type(int32_t id) const override {
    check_id(id, "token id");
    return vocab_.type(id);
  }
  int32_t vocab_size() const override { return vocab_.size(); }
  int32_t bos_id() const override { return vocab_.bos(); }
  int32_t eos_id() const override { return vocab_.eos(); }
  bool add_bos_by_default() const override { return add_bos_; }

 protected:
  // Takes spec.tokens and spec.token_types; `who` names the tokenizer in VocabTable's errors.
  SpecTokenizer(TokenizerSpec& spec, const char* who)
      : vocab_(std::move(spec.tokens), std::move(spec.token_types), spec.bos_id, spec.eos_id, spec.unk_id,
               spec.parse_special, who),
        add_bos_(spec.add_bos) {
    vocab_.apply_strip_rules(spec.general_name, spec.general_arch, spec.pre);
  }

  VocabTable vocab_;
  bool add_bos_;
};

}  // namespace wgrt::text
