// serve::token_logprob (logprobs.h): log-softmax of one logits row, the chosen token and the top alternatives.
#include "serve/logprobs.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace wgrt::serve {

TokenLogprob token_logprob(std::span<const float> logits, int32_t tok, int top,
                           const std::function<std::string(int32_t)>& piece) {
  const float mx = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (float l : logits) sum += std::exp(double(l) - double(mx));
  const double lse = double(mx) + std::log(sum);
  TokenLogprob r;
  r.token = piece(tok);
  r.logprob = float(double(logits[size_t(tok)]) - lse);
  const size_t k = std::min(size_t(std::max(top, 0)), logits.size());
  std::vector<int32_t> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::partial_sort(ids.begin(), ids.begin() + long(k), ids.end(), [&](int32_t a, int32_t b) {
    return logits[size_t(a)] > logits[size_t(b)] || (logits[size_t(a)] == logits[size_t(b)] && a < b);
  });
  for (size_t i = 0; i < k; ++i) r.top.push_back({piece(ids[i]), float(double(logits[size_t(ids[i])]) - lse)});
  return r;
}

}  // namespace wgrt::serve
