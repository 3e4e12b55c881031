// Token log-probabilities for the OpenAI `logprobs` / `top_logprobs` fields: the natural log of each generated
// token's probability under the model's raw logits (softmax over the whole vocabulary, before temperature,
// top-k/p or penalties: the model's distribution, as OpenAI reports it), and the most likely tokens at that step.
// Threads: any (pure functions).
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "serve/job.h"

namespace wgrt::serve {

// logits: one row [vocab] f32 (finite); tok in [0, vocab); top in 0..vocab alternatives, most likely first (ties:
// the lower id). piece(id): the token's text. Sums in double.
TokenLogprob token_logprob(std::span<const float> logits, int32_t tok, int top,
                           const std::function<std::string(int32_t)>& piece);

}  // namespace wgrt::serve
