// The GPU-resident greedy decode loop (Llm::decode_submit / decode_take, used by generate) on the real
// stories260K model, against the step-at-a-time loop (WGRT_DECODE_PIPELINE=0: one argmax read back before the
// next step) and against forward()'s logits. Token ids, text and stop reasons must be identical: both loops
// run the same kernels on the same inputs, only the host round trip differs.
#include <gtest/gtest.h>

#include <cstdlib>

#include "model_test_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

std::unique_ptr<Llm> load(bool pipelined) {
  setenv("WGRT_DECODE_PIPELINE", pipelined ? "1" : "0", 1);  // the policy's default differs by adapter
  auto llm = Llm::load(stories_bin_options());
  unsetenv("WGRT_DECODE_PIPELINE");
  EXPECT_EQ(llm->decode_pipelined(), pipelined);
  return llm;
}

GenerateStats run(Llm& llm, const std::string& prompt, int n, std::vector<std::string> stop = {}) {
  GenerateOptions g;
  g.max_tokens = n;
  g.stop = std::move(stop);
  std::string streamed;
  GenerateStats st = llm.generate(prompt, g, [&](std::string_view s) { streamed += s; });
  EXPECT_EQ(streamed, st.text);
  EXPECT_EQ(llm.decode_pending(), 0);
  return st;
}

std::string prompt_of(const Llm& llm, size_t n) {
  std::string p;
  while (llm.tokenize(p, true).size() < n) p += " the";
  return p;
}

}  // namespace

TEST(DecodePipeline, GenerateMatchesTheStepAtATimeLoop) {
  auto piped = load(true);
  auto plain = load(false);
  struct Case {
    std::string prompt;
    int n;
    std::vector<std::string> stop;
  };
  const std::vector<Case> cases = {
      {"Once upon a time", 120, {}},  // long run
      {"", 1, {}},                    // the prefill's token only: no decode step
      {"", 2, {}},                    // one decode step
      {"Once upon a time", 3, {}},
      {"Once upon a time", 200, {"park"}},           // a stop string mid-run
      {prompt_of(*plain, 509), 10, {}},              // runs into the context end (512)
      {prompt_of(*plain, 512), 10, {}},              // full context: one token
      {"Lily", -1, {}},                              // until an end token or the context end
  };
  for (const Case& c : cases) {
    GenerateStats a = run(*piped, c.prompt, c.n, c.stop), b = run(*plain, c.prompt, c.n, c.stop);
    EXPECT_EQ(a.tokens, b.tokens) << c.prompt.substr(0, 30) << " n=" << c.n;
    EXPECT_EQ(a.text, b.text) << c.n;
    EXPECT_EQ(a.stop_reason, b.stop_reason) << c.n;
    EXPECT_EQ(a.generated_tokens, b.generated_tokens) << c.n;
  }
  EXPECT_EQ(run(*piped, "Once upon a time", 200, {"park"}).stop_reason, "stop");
  EXPECT_EQ(run(*piped, prompt_of(*plain, 509), 10).stop_reason, "context");
}

TEST(DecodePipeline, FedStepsMatchForwardAndTheCacheRecordFollows) {
  auto llm = load(true);
  auto ref = load(true);
  const std::vector<int32_t> prompt = llm->tokenize("Once upon a time", true);
  EvalResult ev = llm->eval(prompt, {});
  // Reference: forward() one token at a time, argmax of the logits read back.
  std::vector<int32_t> want;
  std::vector<float> lg = ref->forward(prompt, 0);
  int32_t t = argmax(lg);
  ASSERT_EQ(t, ev.argmax);
  for (int i = 0; i < 30; ++i) {
    lg = ref->forward({t}, int(prompt.size()) + i);
    t = argmax(lg);
    want.push_back(t);
  }
  // Pipelined: the first step from the host, then every token fed on the GPU, two steps in flight.
  const int P = int(prompt.size());
  llm->decode_submit(ev.argmax, P);
  std::vector<int32_t> got;
  for (int i = 1; i < 30; ++i) {
    llm->decode_submit(-1, P + i);
    EXPECT_EQ(llm->decode_pending(), 2);
    got.push_back(llm->decode_take());
  }
  got.push_back(llm->decode_take());
  EXPECT_EQ(got, want);
  // The cache record knows every fed token: eval of the whole sequence reuses all but the last.
  std::vector<int32_t> seq = prompt;
  seq.push_back(ev.argmax);
  seq.insert(seq.end(), want.begin(), want.end() - 1);
  EvalResult again = llm->eval(seq, {});
  EXPECT_EQ(again.reused, int(seq.size()) - 1);
  EXPECT_EQ(again.argmax, want.back());
}

TEST(DecodePipeline, BadCallsAreClearErrorsAndTheLlmStaysUsable) {
  auto llm = load(true);
  EXPECT_THROW(llm->decode_take(), InvalidArgument);
  EXPECT_THROW(llm->decode_submit(1, llm->context()), LimitError);
  EXPECT_THROW(llm->decode_submit(1, -1), LimitError);
  EXPECT_THROW(llm->decode_submit(llm->vocab_size(), 0), InvalidArgument);
  EXPECT_THROW(llm->decode_submit(-2, 0), InvalidArgument);
  EXPECT_EQ(llm->decode_pending(), 0);
  llm->decode_submit(1, 0);  // BOS at position 0: the model's first token is 403 (llama2.c run.c)
  EXPECT_EQ(llm->decode_take(), 403);
  EXPECT_EQ(run(*llm, "", 5).tokens.front(), 403);
  // Steps left pending when the Llm goes away: their read-backs are released before the device (ASan run).
  llm->decode_submit(1, 0);
  llm->decode_submit(-1, 1);
  EXPECT_EQ(llm->decode_pending(), 2);
  llm.reset();
}
