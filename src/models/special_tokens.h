// SpecialTokens (include/wgrt/llm.h) of a loaded model: BOS/EOS and their text, add_bos, the end-of-turn set
// and the chat template, from the GGUF tokenizer metadata (tokenizer.ggml.bos_token_id, eos_token_id,
// eot_token_id, eom_token_id, add_bos_token, tokenizer.chat_template) and the vocabulary's token texts and
// types; for a llama2.c checkpoint: BOS 1, EOS 2, both ending a reply, no template.
#pragma once
#include "formats/model_weights.h"
#include "text/tokenizer.h"
#include "wgrt/llm.h"

namespace wgrt::models {

// Throws FormatError for a metadata key of the wrong type or a token id outside the vocabulary.
SpecialTokens read_special_tokens(const WeightSource& w, const text::Tokenizer& tok);

}  // namespace wgrt::models
