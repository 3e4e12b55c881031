// The server's logprobs (serve::Scheduler with GenParams::logprobs, src/serve/logprobs.h) against an oracle: the
// plain single-sequence Llm's logits for the same tokens (another graph: 1e-4 apart) and this file's own
// log-softmax in double. Greedy on stories260K: each generated token's logprob and its top 5 alternatives (texts
// and logprobs, 2e-4), the chosen token first among them; a sampled job beside it: its tokens' logprobs at most the
// top alternative's. Also the pure function on a hand-made row (ties: the lower id first).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "model_test_util.h"
#include "models/batch_llm.h"
#include "serve/logprobs.h"
#include "serve/scheduler.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

std::vector<double> log_softmax(const std::vector<float>& l) {
  double m = l[0];
  for (float v : l) m = std::max(m, double(v));
  double s = 0;
  for (float v : l) s += std::exp(double(v) - m);
  std::vector<double> out;
  for (float v : l) out.push_back(double(v) - m - std::log(s));
  return out;
}

}  // namespace

TEST(ServeLogprobs, EqualTheSoftmaxOfTheSingleSequenceLogits) {
  auto batch = models::BatchLlm::load(stories_bin_options(), 2);
  auto single = Llm::load(stories_bin_options());
  serve::Scheduler sched(*batch, 4);
  const std::vector<int32_t> prompt = batch->tokenize("Once upon a time", true);
  serve::GenParams g;
  g.temperature = 0;
  g.max_tokens = 12;
  g.ignore_eos = true;
  g.logprobs = 5;
  serve::GenParams h = g;
  h.temperature = 0.8f;
  h.seed = 3;
  h.logprobs = 1;
  auto job = std::make_shared<serve::Job>(prompt, g), sampled = std::make_shared<serve::Job>(prompt, h);
  ASSERT_EQ(sched.submit(job), serve::Scheduler::Admit::Ok);
  ASSERT_EQ(sched.submit(sampled), serve::Scheduler::Admit::Ok);
  const serve::JobResult r = job->wait(), rs = sampled->wait();
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.logprobs.size(), 12u);
  std::vector<int32_t> seq = prompt;
  std::string text;
  for (size_t k = 0; k < r.logprobs.size(); ++k) {
    EvalOptions eo;
    eo.want_logits = true;
    EvalResult e = single->eval(seq, eo);
    const std::vector<double> lp = log_softmax(e.logits);
    std::vector<int32_t> ids(lp.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return lp[size_t(a)] > lp[size_t(b)]; });
    const serve::TokenLogprob& t = r.logprobs[k];
    EXPECT_EQ(t.token, single->token_piece(seq.back(), e.argmax)) << "token " << k;
    EXPECT_NEAR(t.logprob, lp[size_t(e.argmax)], 2e-4) << "token " << k;
    ASSERT_EQ(t.top.size(), 5u);
    for (size_t j = 0; j < 5; ++j) {
      EXPECT_EQ(t.top[j].first, single->token_piece(seq.back(), ids[j])) << "token " << k << " alternative " << j;
      EXPECT_NEAR(t.top[j].second, lp[size_t(ids[j])], 2e-4) << "token " << k << " alternative " << j;
    }
    EXPECT_LT(t.top[4].second, t.top[0].second);
    text += t.token;
    seq.push_back(e.argmax);
  }
  EXPECT_EQ(text, r.text);
  float least = 0;
  for (const serve::TokenLogprob& t : r.logprobs) least = std::min(least, t.logprob);
  EXPECT_LT(least, -1e-2f) << "every token certain: the comparison could not fail";
  ASSERT_TRUE(rs.error.empty()) << rs.error;
  ASSERT_EQ(rs.logprobs.size(), 12u);
  for (const serve::TokenLogprob& t : rs.logprobs) {
    ASSERT_EQ(t.top.size(), 1u);
    EXPECT_LE(t.logprob, t.top[0].second + 1e-6f);
    EXPECT_LT(t.logprob, 0.0f);
  }
}

TEST(ServeLogprobs, OneRowByHand) {
  const std::vector<float> l = {1.0f, 3.0f, 3.0f, -2.0f};
  auto piece = [](int32_t id) { return std::string(1, char('a' + id)); };
  const double lse = std::log(std::exp(1.0) + 2 * std::exp(3.0) + std::exp(-2.0));
  serve::TokenLogprob t = serve::token_logprob(l, 3, 3, piece);
  EXPECT_EQ(t.token, "d");
  EXPECT_NEAR(t.logprob, -2.0 - lse, 1e-6);
  ASSERT_EQ(t.top.size(), 3u);
  EXPECT_EQ(t.top[0].first, "b");  // tie with c: the lower id first
  EXPECT_EQ(t.top[1].first, "c");
  EXPECT_EQ(t.top[2].first, "a");
  EXPECT_NEAR(t.top[2].second, 1.0 - lse, 1e-6);
  EXPECT_EQ(serve::token_logprob(l, 0, 0, piece).top.size(), 0u);
  EXPECT_EQ(serve::token_logprob(l, 0, 99, piece).top.size(), 4u);
}
