// End to end on the real stories260K model (llama2.c checkpoint and GGUF written by llama.cpp's converter):
// the GPU engine against the CPU reference forward pass at every step, and the llama2.c run.c facts.
// Tolerance: logits within 2e-3 absolute of the fp64-accumulated CPU reference (fp32 GPU math over 5 layers;
// logits are O(10)), and identical argmax at every step.
#include <gtest/gtest.h>

#include "formats/model_weights.h"
#include "model_test_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {
// GPU f32 against the double-precision CPU reference (logits up to ~12): with f32 KV caches 2e-3; with f16 caches
// (the default; the reference rounds its cache the same way, CpuLlama f16_kv) 4e-2, since a cached k or v whose
// GPU f32 value and reference value round to different f16 neighbours differs by one f16 step, and those grow in
// number with the context (measured: 5.7e-3 within 60 positions, 2.0e-2 within 512). Greedy ids must agree at
// every step either way.
constexpr float kLogitTol = 2e-3f, kLogitTolF16 = 4e-2f;
const char* kGreedyPrefix =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw "
    "a big, red ball. She wanted to play with it, but it was too high";
}  // namespace

TEST(Stories260K, TokenizesLikeTheReference) {
  auto llm = Llm::load(stories_bin_options());
  EXPECT_EQ(llm->tokenize("Once upon a time", true), (std::vector<int32_t>{1, 403, 407, 261, 378}));
}

// With a KV cache of type ct ("f32" or "f16").
static void greedy_matches_run_c_and_cpu_reference(const std::string& ct) {
  LlmOptions o = stories_bin_options();
  o.cache_type = ct;
  auto llm = Llm::load(o);
  WeightSource w = load_llama2c(stories("stories260K.bin"));
  CpuLlama cpu(w.config(), w, ct == "f16");
  const float tol = ct == "f16" ? kLogitTolF16 : kLogitTol;
  // Step 0 from BOS: top token 403 with probability ~0.784 (llama2.c run.c).
  int tok = 1;
  std::vector<int32_t> generated;
  for (int pos = 0; pos < 60; ++pos) {
    std::vector<float> gpu = llm->forward({tok}, pos);
    std::vector<float> ref = cpu.forward(tok, pos);
    ASSERT_LT(max_abs_diff(gpu, ref), tol) << "pos " << pos;
    ASSERT_EQ(argmax(gpu), argmax(ref)) << "pos " << pos;
    if (pos == 0) {
      double mx = *std::max_element(gpu.begin(), gpu.end()), sum = 0;
      for (float l : gpu) sum += std::exp(double(l) - mx);
      EXPECT_EQ(argmax(gpu), 403);
      EXPECT_NEAR(1.0 / sum, 0.784, 0.001);
    }
    tok = argmax(gpu);
    generated.push_back(tok);
  }
  std::vector<int32_t> with_bos = {1};
  with_bos.insert(with_bos.end(), generated.begin(), generated.end());
  std::string text = llm->detokenize(with_bos);  // decoded after BOS, as run.c prints it
  EXPECT_EQ(text.substr(0, std::string(kGreedyPrefix).size()), kGreedyPrefix) << text;
  // generate() (greedy on the GPU, one int read back per step) produces the same tokens.
  GenerateOptions g;
  g.max_tokens = 60;
  std::string streamed;
  GenerateStats st = llm->generate("", g, [&](std::string_view s) { streamed += s; });
  EXPECT_EQ(st.tokens, generated);
  EXPECT_EQ(streamed, text);
}

TEST(Stories260K, GreedyMatchesRunCAndCpuReferenceAtEveryStep) {
  for (const char* ct : {"f32", "f16"}) {
    SCOPED_TRACE(std::string(ct) + " KV cache");
    greedy_matches_run_c_and_cpu_reference(ct);
  }
}

TEST(Stories260K, GgufGivesTheSameTokensAsTheBin) {
  auto bin = Llm::load(stories_bin_options());
  LlmOptions o;
  o.model = stories("stories260K.gguf");  // vocabulary embedded in the GGUF
  auto gguf = Llm::load(o);
  EXPECT_EQ(gguf->tokenize("Once upon a time", true), (std::vector<int32_t>{1, 403, 407, 261, 378}));
  GenerateOptions g;
  g.max_tokens = 80;
  auto a = bin->generate("Once upon a time", g, [](std::string_view) {});
  auto b = gguf->generate("Once upon a time", g, [](std::string_view) {});
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_GT(a.tokens.size(), 20u);
}

// Prefill in chunks of 7 (a 40-token prompt spans 6 chunks), then decode to position 511, comparing logits
// with the reference at every position; then the context is full and stops cleanly. KV cache of type ct.
static void chunked_prefill_and_decode_to_the_full_context(const std::string& ct) {
  LlmOptions o = stories_bin_options();
  o.max_prefill = 7;
  o.cache_type = ct;
  auto llm = Llm::load(o);
  ASSERT_EQ(llm->context(), 512);
  WeightSource w = load_llama2c(stories("stories260K.bin"));
  CpuLlama cpu(w.config(), w, ct == "f16");
  const float tol = ct == "f16" ? kLogitTolF16 : kLogitTol;
  std::vector<int32_t> prompt = llm->tokenize(
      "Once upon a time, there was a big dog named Max. Max liked to run and jump in the tall green grass.", true);
  ASSERT_GT(prompt.size(), 20u);
  std::vector<float> ref;
  for (size_t i = 0; i < prompt.size(); ++i) ref = cpu.forward(prompt[i], int(i));
  std::vector<float> gpu = llm->forward(prompt, 0);
  ASSERT_LT(max_abs_diff(gpu, ref), tol);
  int tok = argmax(gpu);
  for (int pos = int(prompt.size()); pos < 512; ++pos) {
    gpu = llm->forward({tok}, pos);
    ref = cpu.forward(tok, pos);
    ASSERT_LT(max_abs_diff(gpu, ref), tol) << "pos " << pos;
    ASSERT_EQ(argmax(gpu), argmax(ref)) << "pos " << pos;
    tok = argmax(gpu);
    if (tok == 1) tok = 403;  // keep going past a story end: any token works for the comparison
  }
  EXPECT_THROW(llm->forward({tok}, 512), LimitError);
  // The engine stays usable: a fresh generation near the end of the context stops at the limit.
  GenerateOptions g;
  g.max_tokens = 1000;
  std::string p;
  for (int i = 0; i < 80; ++i) p += " the big dog ran";
  auto ids = llm->tokenize(p, true);
  ASSERT_LT(ids.size(), 512u);
  auto st = llm->generate(p, g, [](std::string_view) {});
  EXPECT_TRUE(st.stop_reason == "context" || st.stop_reason == "eos") << st.stop_reason;
  if (st.stop_reason == "context") EXPECT_EQ(int(ids.size()) + st.generated_tokens, 513);
}

TEST(Stories260K, ChunkedPrefillAndDecodeToTheFullContext) {
  for (const char* ct : {"f32", "f16"}) {
    SCOPED_TRACE(std::string(ct) + " KV cache");
    chunked_prefill_and_decode_to_the_full_context(ct);
  }
}

TEST(Stories260K, PrefillProgressIsReportedPerChunk) {
  // A 40-odd-token prompt in chunks of 7: on_prefill sees 7, 14, ... up to the total, and the generated tokens
  // are the same as without the callback; a one-chunk prompt reports nothing.
  LlmOptions o = stories_bin_options();
  o.max_prefill = 7;
  auto llm = Llm::load(o);
  const std::string prompt = "Once upon a time, there was a big dog named Max. Max liked to run and jump in the tall green grass.";
  const int total = int(llm->tokenize(prompt, true).size());
  GenerateOptions g;
  g.max_tokens = 12;
  auto plain = llm->generate(prompt, g, [](std::string_view) {});
  std::vector<std::pair<int, int>> seen;
  g.on_prefill = [&](int done, int t) { seen.push_back({done, t}); };
  auto reported = llm->generate(prompt, g, [](std::string_view) {});
  EXPECT_EQ(reported.tokens, plain.tokens);
  std::vector<std::pair<int, int>> want;
  for (int done = 7; done < total; done += 7) want.push_back({done, total});
  want.push_back({total, total});
  EXPECT_EQ(seen, want);
  seen.clear();
  llm->generate("Once upon", g, [](std::string_view) {});
  EXPECT_TRUE(seen.empty());
}

TEST(Stories260K, PromptLongerThanTheContextIsAnError) {
  LlmOptions o = stories_bin_options();
  o.context = 16;
  auto llm = Llm::load(o);
  GenerateOptions g;
  EXPECT_THROW(llm->generate("Once upon a time there was a little girl named Lily who loved to play outside", g,
                             [](std::string_view) {}),
               LimitError);
  // Still usable afterwards.
  auto st = llm->generate("Once", g, [](std::string_view) {});
  EXPECT_GT(st.generated_tokens, 0);
}
