#include "text/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include <wgrt/error.h>

namespace wgrt::text {

Sampler::Sampler(const SamplerConfig& c) : config_(c), rng_(c.seed) {
  if (!(c.temperature >= 0.0f) || std::isinf(c.temperature)) {
    throw InvalidArgument(fmt::format("sampler: temperature {} must be finite and >= 0", c.temperature));
  }
  if (c.top_k < 0) throw InvalidArgument(fmt::format("sampler: top_k {} must be >= 0", c.top_k));
  if (!(c.top_p > 0.0f && c.top_p <= 1.0f)) {
    throw InvalidArgument(fmt::format("sampler: top_p {} must be in (0, 1]", c.top_p));
  }
  if (!(c.min_p >= 0.0f && c.min_p <= 1.0f)) {
    throw InvalidArgument(fmt::format("sampler: min_p {} must be in [0, 1]", c.min_p));
  }
  if (!(c.repetition_penalty > 0.0f) || std::isinf(c.repetition_penalty)) {
    throw InvalidArgument(fmt::format("sampler: repetition_penalty {} must be finite and > 0", c.repetition_penalty));
  }
  if (c.penalty_last_n < -1) {
    throw InvalidArgument(fmt::format("sampler: penalty_last_n {} must be >= -1", c.penalty_last_n));
  }
}

void Sampler::reseed(uint64_t seed) {
  config_.seed = seed;
  rng_.seed(seed);
}

// Steps 1-6 of the header; result in internal order (sorted when top-k/top-p needed it, else by id).
std::vector<TokenProb> Sampler::candidates(std::span<const float> logits, std::span<const int32_t> history) const {
  const std::size_t n = logits.size();
  if (n == 0) throw InvalidArgument("sampler: empty logits");
  if (n > static_cast<std::size_t>(std::numeric_limits<int32_t>::max())) {
    throw InvalidArgument(fmt::format("sampler: {} logits exceed the int32 id range", n));
  }
  std::vector<double> l(n);
  bool any_finite = false;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = logits[i];
    if (std::isnan(v) || v == std::numeric_limits<float>::infinity()) {
      throw InvalidArgument(fmt::format("sampler: logit {} is {}", i, v));
    }
    any_finite = any_finite || std::isfinite(v);
    l[i] = v;
  }
  if (!any_finite) throw InvalidArgument("sampler: every logit is -inf");

  // 1. repetition penalty
  if (config_.repetition_penalty != 1.0f && config_.penalty_last_n != 0) {
    const std::size_t window = config_.penalty_last_n < 0
                                   ? history.size()
                                   : std::min(history.size(), static_cast<std::size_t>(config_.penalty_last_n));
    std::unordered_set<int32_t> seen;
    const double pen = config_.repetition_penalty;
    for (int32_t id : history.subspan(history.size() - window)) {
      if (id < 0 || static_cast<std::size_t>(id) >= n) {
        throw InvalidArgument(fmt::format("sampler: history token {} outside [0, {})", id, n));
      }
      if (!seen.insert(id).second) continue;
      double& v = l[static_cast<std::size_t>(id)];
      v = v > 0 ? v / pen : v * pen;
    }
  }
  // 2. greedy
  if (config_.temperature == 0.0f) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < n; ++i) if (l[i] > l[best]) best = i;
    return {TokenProb{static_cast<int32_t>(best), 1.0}};
  }
  // 3. temperature (p temporarily holds the logit)
  std::vector<TokenProb> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = {static_cast<int32_t>(i), l[i] / config_.temperature};
  auto by_logit = [](const TokenProb& a, const TokenProb& b) { return a.p > b.p || (a.p == b.p && a.id < b.id); };
  // 4. top-k
  const bool need_k = config_.top_k > 0 && static_cast<std::size_t>(config_.top_k) < n;
  if (need_k) {
    std::partial_sort(c.begin(), c.begin() + config_.top_k, c.end(), by_logit);
    c.resize(static_cast<std::size_t>(config_.top_k));
  } else if (config_.top_p < 1.0f) {
    std::sort(c.begin(), c.end(), by_logit);
  }
  // 5. softmax + top-p
  double mx = -std::numeric_limits<double>::infinity();
  for (const auto& t : c) mx = std::max(mx, t.p);
  double sum = 0;
  for (auto& t : c) sum += (t.p = std::exp(t.p - mx));
  for (auto& t : c) t.p /= sum;
  if (config_.top_p < 1.0f) {  // c is sorted by decreasing logit, hence decreasing p
    double cum = 0;
    std::size_t keep = 0;
    while (keep < c.size()) {
      cum += c[keep++].p;
      if (cum >= config_.top_p) break;
    }
    c.resize(keep);
  }
  // 6. min-p
  if (config_.min_p > 0.0f) {
    double pmax = 0;
    for (const auto& t : c) pmax = std::max(pmax, t.p);
    const double thr = config_.min_p * pmax;
    std::erase_if(c, [&](const TokenProb& t) { return t.p < thr; });
  }
  sum = 0;
  for (const auto& t : c) sum += t.p;
  for (auto& t : c) t.p /= sum;
  return c;
}

std::vector<TokenProb> Sampler::distribution(std::span<const float> logits, std::span<const int32_t> history) const {
  std::vector<TokenProb> c = candidates(logits, history);
  std::sort(c.begin(), c.end(), [](const TokenProb& a, const TokenProb& b) {
    return a.p > b.p || (a.p == b.p && a.id < b.id);
  });
  return c;
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> history) {
  const std::vector<TokenProb> c = candidates(logits, history);
  if (config_.temperature == 0.0f) return c.front().id;
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  double total = 0;
  for (const auto& t : c) total += t.p;
  const double target = u * total;
  double cum = 0;
  for (const auto& t : c) {
    cum += t.p;
    if (cum > target) return t.id;
  }
  return c.back().id;
}

}  // namespace wgrt::text
