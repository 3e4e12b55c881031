// Sampler: exact truncation sets on hand-computed distributions, penalty math, statistics with fixed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include <wgrt/error.h>

#include "text/sampler.h"

namespace wgrt::text {
namespace {

// logits whose softmax is exactly p (up to rounding of log/exp): [0.5, 0.2, 0.15, 0.1, 0.05].
std::vector<float> known() {
  std::vector<float> l;
  for (double p : {0.5, 0.2, 0.15, 0.1, 0.05}) l.push_back(static_cast<float>(std::log(p)));
  return l;
}

std::map<int32_t, double> dist(const SamplerConfig& c, const std::vector<float>& logits,
                               const std::vector<int32_t>& history = {}) {
  std::map<int32_t, double> m;
  for (const auto& t : Sampler(c).distribution(logits, history)) m[t.id] = t.p;
  return m;
}

void expect_dist(const std::map<int32_t, double>& got, const std::map<int32_t, double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [id, p] : want) {
    ASSERT_TRUE(got.count(id)) << "missing id " << id;
    EXPECT_NEAR(got.at(id), p, 1e-6) << "id " << id;  // float logits: ~1e-7 relative error
  }
}

TEST(Sampler, TruncationSets) {
  SamplerConfig c;
  expect_dist(dist(c, known()), {{0, .5}, {1, .2}, {2, .15}, {3, .1}, {4, .05}});
  c.top_k = 2;
  expect_dist(dist(c, known()), {{0, .5 / .7}, {1, .2 / .7}});
  c = {};
  c.top_p = 0.75f;  // cumulative .5, .7, .85 -> 3 tokens
  expect_dist(dist(c, known()), {{0, .5 / .85}, {1, .2 / .85}, {2, .15 / .85}});
  c.top_p = 0.45f;
  expect_dist(dist(c, known()), {{0, 1.0}});
  c.top_p = 0.6f;
  expect_dist(dist(c, known()), {{0, .5 / .7}, {1, .2 / .7}});
  c = {};
  c.min_p = 0.35f;  // threshold .175
  expect_dist(dist(c, known()), {{0, .5 / .7}, {1, .2 / .7}});
  c.min_p = 0.25f;  // threshold .125
  expect_dist(dist(c, known()), {{0, .5 / .85}, {1, .2 / .85}, {2, .15 / .85}});
}

TEST(Sampler, OrderOfOperations) {
  // top-k before top-p: after top_k=3 the probabilities are [.5,.2,.15]/.85 = [.588,.235,.176]; top_p .8 then
  // needs only 2 (cumulative .824), whereas top_p .8 alone needs 3.
  SamplerConfig c;
  c.top_k = 3;
  c.top_p = 0.8f;
  expect_dist(dist(c, known()), {{0, .5 / .7}, {1, .2 / .7}});
  // temperature before top-p: T = .5 squares the probabilities: [.25,.04,.0225,.01,.0025]/.325; cumulative
  // .769, .892 -> 2 tokens, where T = 1 keeps 3.
  c = {};
  c.temperature = 0.5f;
  c.top_p = 0.8f;
  expect_dist(dist(c, known()), {{0, .25 / .29}, {1, .04 / .29}});
  // top-p before min-p: top_p .9 keeps 4 ([.5,.2,.15,.1]/.95), min_p .25 of .526 = .132 then drops id 3.
  c = {};
  c.top_p = 0.9f;
  c.min_p = 0.25f;
  expect_dist(dist(c, known()), {{0, .5 / .85}, {1, .2 / .85}, {2, .15 / .85}});
}

TEST(Sampler, RepetitionPenaltyMath) {
  SamplerConfig c;
  c.repetition_penalty = 2.0f;
  // [2, -1, .5, 3] with history {0, 1, 1}: 2/2 = 1, -1*2 = -2 (once, although repeated), others unchanged.
  const std::vector<float> l{2.0f, -1.0f, 0.5f, 3.0f};
  const double z = std::exp(1.0) + std::exp(-2.0) + std::exp(0.5) + std::exp(3.0);
  expect_dist(dist(c, l, {0, 1, 1}),
              {{0, std::exp(1.0) / z}, {1, std::exp(-2.0) / z}, {2, std::exp(0.5) / z}, {3, std::exp(3.0) / z}});
  // Window: only the last token (id 1) is penalized.
  c.penalty_last_n = 1;
  const double z1 = std::exp(2.0) + std::exp(-2.0) + std::exp(0.5) + std::exp(3.0);
  expect_dist(dist(c, l, {0, 1}), {{0, std::exp(2.0) / z1}, {1, std::exp(-2.0) / z1}, {2, std::exp(0.5) / z1},
                                   {3, std::exp(3.0) / z1}});
  // Greedy after penalty: [3, 2.9] with id 0 seen and penalty 1.5 -> [2, 2.9]: id 1.
  SamplerConfig g;
  g.temperature = 0;
  g.repetition_penalty = 1.5f;
  Sampler s(g);
  const std::vector<float> l2{3.0f, 2.9f};
  const std::vector<int32_t> h{0};
  EXPECT_EQ(s.sample(l2, h), 1);
  EXPECT_EQ(s.sample(l2, {}), 0);
  g.penalty_last_n = 0;  // off
  EXPECT_EQ(Sampler(g).sample(l2, h), 0);
}

TEST(Sampler, GreedyIsArgmaxLowestIndexOnTies) {
  SamplerConfig c;
  c.temperature = 0;
  c.top_k = 1;  // ignored by greedy
  Sampler s(c);
  EXPECT_EQ(s.sample(std::vector<float>{1, 5, 5, 2}, {}), 1);
  EXPECT_EQ(s.sample(std::vector<float>{-std::numeric_limits<float>::infinity(), -3}, {}), 1);
  EXPECT_EQ(s.sample(std::vector<float>{7}, {}), 0);
}

TEST(Sampler, DrawFollowsTheDocumentedUniform) {
  // Two equal logits: token 0 iff u < .5, with u = (first mt19937_64 output >> 11) * 2^-53.
  for (uint64_t seed = 0; seed < 64; ++seed) {
    SamplerConfig c;
    c.seed = seed;
    Sampler s(c);
    std::mt19937_64 ref(seed);
    const double u = static_cast<double>(ref() >> 11) * 0x1.0p-53;
    EXPECT_EQ(s.sample(std::vector<float>{0, 0}, {}), u < 0.5 ? 0 : 1) << seed;
  }
}

TEST(Sampler, MatchesSoftmaxStatistically) {
  // 20000 draws from softmax([0, 1, 2, -1, .5] / 0.8). Each count within 5 sigma of n p (sigma = sqrt(n p (1-p)))
  // and Pearson chi-square below 18.47 (df 4, p = 0.001). Fixed seed: deterministic.
  SamplerConfig c;
  c.temperature = 0.8f;
  c.seed = 12345;
  Sampler s(c);
  const std::vector<float> l{0, 1, 2, -1, 0.5f};
  std::vector<double> p;
  double z = 0;
  for (float v : l) z += std::exp(v / 0.8);
  for (float v : l) p.push_back(std::exp(v / 0.8) / z);
  const int n = 20000;
  std::vector<int> count(l.size());
  for (int i = 0; i < n; ++i) ++count[static_cast<std::size_t>(s.sample(l, {}))];
  double chi2 = 0;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const double e = n * p[i];
    EXPECT_NEAR(count[i], e, 5 * std::sqrt(e * (1 - p[i]))) << "id " << i;
    chi2 += (count[i] - e) * (count[i] - e) / e;
  }
  EXPECT_LT(chi2, 18.47);
}

TEST(Sampler, TruncatedDrawsStayInTheSetAndMaskedTokensNeverAppear) {
  SamplerConfig c;
  c.top_k = 2;
  c.seed = 3;
  Sampler s(c);
  const float ninf = -std::numeric_limits<float>::infinity();
  const std::vector<float> l{1.0f, ninf, 0.9f, 0.8f};
  int seen[4] = {};
  for (int i = 0; i < 2000; ++i) ++seen[s.sample(l, {})];
  EXPECT_EQ(seen[1] + seen[3], 0);
  EXPECT_GT(seen[0], 800);
  EXPECT_GT(seen[2], 800);
}

TEST(Sampler, SameSeedSameSequence) {
  SamplerConfig c;
  c.seed = 99;
  c.top_p = 0.95f;
  Sampler a(c), b(c);
  c.seed = 100;
  Sampler other(c);
  const std::vector<float> l{0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f};
  std::vector<int32_t> sa, sb, so;
  for (int i = 0; i < 200; ++i) {
    sa.push_back(a.sample(l, sa));
    sb.push_back(b.sample(l, sb));
    so.push_back(other.sample(l, so));
  }
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, so);
  a.reseed(99);
  std::vector<int32_t> again;
  for (int i = 0; i < 200; ++i) again.push_back(a.sample(l, again));
  EXPECT_EQ(again, sa);
}

TEST(Sampler, InvalidConfigAndInputs) {
  auto bad = [](auto edit) {
    SamplerConfig c;
    edit(c);
    EXPECT_THROW(Sampler{c}, InvalidArgument);
  };
  bad([](SamplerConfig& c) { c.temperature = -0.1f; });
  bad([](SamplerConfig& c) { c.temperature = std::nanf(""); });
  bad([](SamplerConfig& c) { c.top_k = -1; });
  bad([](SamplerConfig& c) { c.top_p = 0.0f; });
  bad([](SamplerConfig& c) { c.top_p = 1.01f; });
  bad([](SamplerConfig& c) { c.min_p = -0.1f; });
  bad([](SamplerConfig& c) { c.min_p = 1.5f; });
  bad([](SamplerConfig& c) { c.repetition_penalty = 0.0f; });
  bad([](SamplerConfig& c) { c.penalty_last_n = -2; });
  Sampler s(SamplerConfig{});
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW(s.sample(std::vector<float>{}, {}), InvalidArgument);
  EXPECT_THROW(s.sample(std::vector<float>{0, std::nanf("")}, {}), InvalidArgument);
  EXPECT_THROW(s.sample(std::vector<float>{0, inf}, {}), InvalidArgument);
  EXPECT_THROW(s.sample(std::vector<float>{-inf, -inf}, {}), InvalidArgument);
  SamplerConfig p;
  p.repetition_penalty = 1.2f;
  EXPECT_THROW(Sampler(p).sample(std::vector<float>{0, 1}, std::vector<int32_t>{2}), InvalidArgument);
  EXPECT_THROW(Sampler(p).sample(std::vector<float>{0, 1}, std::vector<int32_t>{-1}), InvalidArgument);
}

}  // namespace
}  // namespace wgrt::text
