// Next-token sampling from a logits vector.
//
// Order of operations (HF transformers' processors/warpers order, and llama2.c run.c for temperature + top-p):
//   1. repetition penalty: every distinct id among the last penalty_last_n history tokens (all of history when -1,
//      none when 0) has its logit l replaced by l / penalty if l > 0, else l * penalty (CTRL paper, llama.cpp
//      penalties sampler semantics: l <= 0 is multiplied);
//   2. temperature == 0: greedy, the argmax of the penalized logits (lowest id on ties); steps 3-7 are skipped and
//      the random generator is not advanced;
//   3. logits / temperature;
//   4. top-k (k > 0 and k < vocab): keep the k largest logits (ties: lower id first);
//   5. softmax over the kept tokens, then top-p (< 1): keep the shortest prefix, in decreasing probability order
//      (ties: lower id first), whose cumulative probability reaches top_p (at least one token);
//   6. min-p (> 0): keep tokens whose probability is >= min_p * the largest probability;
//   7. renormalise and draw: u in [0,1) from the 53 high bits of one std::mt19937_64 output (u = (x >> 11) * 2^-53),
//      token = the first whose cumulative probability exceeds u * total (in the candidate order used internally).
// Note llama.cpp's default chain applies temperature after top-k/top-p/min-p instead; with temperature != 1 the
// top-p and min-p sets can differ from it. Probabilities are computed in double.
//
// Determinism: the same config (seed), logits and history give the same token sequence on every platform.
#pragma once
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace wgrt::text {

struct SamplerConfig {
  float temperature = 1.0f;         // >= 0; 0 = greedy
  int32_t top_k = 0;                // >= 0; 0 = off
  float top_p = 1.0f;               // in (0, 1]; 1 = off
  float min_p = 0.0f;               // in [0, 1]; 0 = off
  float repetition_penalty = 1.0f;  // > 0; 1 = off
  int32_t penalty_last_n = 64;      // >= -1; -1 = whole history, 0 = off
  uint64_t seed = 0;
};

struct TokenProb {
  int32_t id;
  double p;
};

class Sampler {
 public:
  // Throws InvalidArgument if a field is outside its range (NaN included).
  explicit Sampler(const SamplerConfig& config);

  // The next token id in [0, logits.size()). history: the tokens so far (prompt + generated), oldest first.
  // Throws InvalidArgument for empty logits, a NaN or +inf logit, all logits -inf, or a history id outside
  // [0, logits.size()) inside the penalty window.
  int32_t sample(std::span<const float> logits, std::span<const int32_t> history);

  // The distribution sample() would draw from (steps 1-6, renormalised), sorted by decreasing p, ties by id.
  // Greedy: the single argmax with p = 1. Does not advance the generator. Same errors as sample().
  std::vector<TokenProb> distribution(std::span<const float> logits, std::span<const int32_t> history) const;

  const SamplerConfig& config() const { return config_; }
  // Restarts the random sequence.
  void reseed(uint64_t seed);

 private:
  std::vector<TokenProb> candidates(std::span<const float> logits, std::span<const int32_t> history) const;
  SamplerConfig config_;
  std::mt19937_64 rng_;
};

}  // namespace wgrt::text
