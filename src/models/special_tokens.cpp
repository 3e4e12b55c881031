#include "models/special_tokens.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/gguf.h"
#include "wgrt/error.h"

namespace wgrt::models {

namespace {

// Token texts that end a turn in the common chat formats (ChatML, Llama 3, Gemma, Phi-3, GPT-2 family).
constexpr const char* kEndOfTurnTexts[] = {"<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<end_of_turn>", "<|end|>",
                                           "<|endoftext|>"};

}  // namespace

SpecialTokens read_special_tokens(const WeightSource& w, const text::Tokenizer& tok) {
  SpecialTokens s;
  s.bos = tok.bos_id();
  s.eos = tok.eos_id();
  s.add_bos = tok.add_bos_by_default();
  if (s.bos >= 0) s.bos_text = tok.piece(s.bos);
  if (s.eos >= 0) s.eos_text = tok.piece(s.eos);
  if (s.eos >= 0) s.end_of_turn.push_back(s.eos);
  const int32_t n = tok.vocab_size();
  if (const GgufFile* g = w.gguf()) {
    for (const char* key : {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"}) {
      if (auto id = g->opt_u32(key)) {
        if (int64_t(*id) >= n)
          throw FormatError(fmt::format("{}: {} = {} is outside the vocabulary of {} tokens", g->path(), key, *id, n));
        s.end_of_turn.push_back(int32_t(*id));
      }
    }
    if (auto t = g->opt_string("tokenizer.chat_template")) s.chat_template = *t;
    for (int32_t id = 0; id < n; ++id) {
      const text::TokenType ty = tok.token_type(id);
      if (ty != text::TokenType::Control && ty != text::TokenType::UserDefined) continue;
      const std::string& p = tok.piece(id);
      for (const char* e : kEndOfTurnTexts)
        if (p == e) s.end_of_turn.push_back(id);
    }
  } else if (s.bos >= 0) {
    s.end_of_turn.push_back(s.bos);  // llama2.c run.c: BOS separates stories
  }
  std::sort(s.end_of_turn.begin(), s.end_of_turn.end());
  s.end_of_turn.erase(std::unique(s.end_of_turn.begin(), s.end_of_turn.end()), s.end_of_turn.end());
  return s;
}

}  // namespace wgrt::models
