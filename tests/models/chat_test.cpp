// wgrt::ChatSession and the generation loop (include/wgrt/llm.h) on real weights: the KV cache reused across
// turns gives the logits of a from-scratch prefill of the whole conversation (GPU Llm::forward on a second
// Llm, and the CPU reference tests/support/cpu_llama.h); greedy replies equal from-scratch generation of the
// rendered conversation; special tokens from the GGUF metadata; stop strings split across tokens; context
// overflow; cancel. Tolerance for logits: 1e-3 absolute (f32 weights, logits up to ~7 here; the cache-reusing
// and the from-scratch runs prefill in different chunks, so they may round differently; lavapipe measures 0
// against the second Llm and 5e-6 against the CPU reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "chat_model.h"
#include "formats/model_weights.h"
#include "model_test_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

constexpr float kLogitTol = 1e-3f;

std::unique_ptr<Llm> load_chat_model(int context = 256) {
  LlmOptions o;
  o.model = chat_synth_path(context);
  return Llm::load(o);
}

GenerateOptions greedy(int n) {
  GenerateOptions g;
  g.max_tokens = n;
  return g;
}

auto ignore = [](std::string_view) {};

}  // namespace

TEST(Chat, SpecialTokensFromTheGgufMetadata) {
  auto llm = load_chat_model();
  const SpecialTokens& s = llm->special_tokens();
  EXPECT_EQ(s.bos, 1);
  EXPECT_EQ(s.eos, 2);
  EXPECT_EQ(s.bos_text, "<s>");
  EXPECT_EQ(s.eos_text, "</s>");
  EXPECT_TRUE(s.add_bos);
  EXPECT_EQ(s.end_of_turn, (std::vector<int32_t>{2, 319}));  // </s>, <|im_end|> (eot_token_id and by its text)
  EXPECT_EQ(s.chat_template, kChatTestTemplate);
  EXPECT_EQ(llm->tokenize("<|im_start|>", false), (std::vector<int32_t>{318}));
  EXPECT_EQ(resolve_chat_template(*llm, "").name, "model");
  // stories260K: no template (the built-in ChatML is the fallback); llama2.c also stops at BOS.
  LlmOptions o;
  o.model = stories("stories260K.gguf");
  auto g = Llm::load(o);
  EXPECT_TRUE(g->special_tokens().chat_template.empty());
  EXPECT_EQ(g->special_tokens().end_of_turn, (std::vector<int32_t>{2}));
  ChatTemplateSource fb = resolve_chat_template(*g, "");
  EXPECT_EQ(fb.name, "chatml");
  EXPECT_NE(fb.origin.find("has no chat template"), std::string::npos);
  auto bin = Llm::load(stories_bin_options());
  EXPECT_EQ(bin->special_tokens().end_of_turn, (std::vector<int32_t>{1, 2}));
  EXPECT_THROW(resolve_chat_template(*g, "no-such-template"), InvalidArgument);
  EXPECT_EQ(resolve_chat_template(*g, "llama3").name, "llama3");
}

TEST(Chat, CacheReuseGivesTheLogitsOfAFullPrefill) {
  auto llm = load_chat_model();
  ChatSession chat(*llm, {.system = "Be brief."});
  GenerateStats t1 = chat.say("hello there", greedy(6), ignore);
  EXPECT_EQ(t1.cached_tokens, 0);
  const size_t after1 = chat.prompt_tokens().size();
  GenerateStats t2 = chat.say("and again", greedy(6), ignore);
  // Each turn reused the whole prompt of the turn before: only the new turn (and the reply) was prefilled.
  EXPECT_GE(t2.cached_tokens, t1.prompt_tokens);
  EXPECT_GT(after1, size_t(t1.prompt_tokens));
  chat.add("user", "third question");
  const std::vector<int32_t> all = chat.prompt_tokens();
  EvalResult ev = chat.prefill(true);
  EXPECT_GE(ev.reused, t2.cached_tokens + t2.prompt_tokens);
  EXPECT_LT(ev.reused, int(all.size()));
  // From scratch on a second Llm (one prefill of everything), and on the CPU reference.
  auto fresh = load_chat_model();
  std::vector<float> want = fresh->forward(all, 0);
  EXPECT_LE(max_abs_diff(ev.logits, want), kLogitTol);
  WeightSource w = load_gguf_llama(chat_synth_path());
  CpuLlama cpu(w.config(), w, llm_kv_f16(w.config()));
  std::vector<float> ref;
  for (size_t i = 0; i < all.size(); ++i) ref = cpu.forward(all[i], int(i));
  EXPECT_LE(max_abs_diff(ev.logits, ref), kLogitTol);
  EXPECT_EQ(ev.argmax, argmax(ref));
}

TEST(Chat, GreedyRepliesEqualFromScratchGeneration) {
  auto llm = load_chat_model();
  auto fresh = load_chat_model();
  ChatSession chat(*llm);
  std::vector<std::string> turns;
  for (const char* q : {"What is 2+2?", "Why?", "Tell me more."}) {
    turns.push_back(q);
    // Golden: the hand-rendered conversation, generated from position 0 with no cache reuse.
    std::string want;
    GenerateStats g = fresh->generate(chatml_by_hand(turns), greedy(8), [&](std::string_view s) { want += s; });
    std::string got;
    GenerateStats st = chat.say(q, greedy(8), [&](std::string_view s) { got += s; });
    EXPECT_EQ(got, want) << q;
    EXPECT_EQ(st.text, got);
    EXPECT_EQ(st.tokens, g.tokens);
    EXPECT_EQ(chat.messages().back().content, got);
    turns.push_back(got);
  }
  EXPECT_EQ(chat.prompt_text(), chatml_by_hand(turns));
  EXPECT_EQ(chat.messages().size(), 6u);
}

TEST(Chat, StopStringSplitAcrossTokens) {
  auto llm = Llm::load(stories_bin_options());
  GenerateStats full = llm->generate("Once upon a time", greedy(40), ignore);
  ASSERT_GE(full.tokens.size(), 10u);
  // A stop string made of the end of token 5's piece and the start of token 6's.
  std::vector<std::string> pieces;
  int32_t prev = llm->tokenize("Once upon a time", true).back();
  for (int32_t t : full.tokens) pieces.push_back(llm->token_piece(prev, t)), prev = t;
  size_t k = 5;
  while (k + 1 < pieces.size() && (pieces[k].size() < 2 || pieces[k + 1].size() < 2)) ++k;
  ASSERT_LT(k + 1, pieces.size());
  const std::string stop = pieces[k].substr(pieces[k].size() - 2) + pieces[k + 1].substr(0, 2);
  GenerateOptions g = greedy(40);
  g.stop = {"never appears", stop};
  std::string shown;
  GenerateStats st = llm->generate("Once upon a time", g, [&](std::string_view s) { shown += s; });
  EXPECT_EQ(st.stop_reason, "stop");
  EXPECT_EQ(st.stop_string, stop);
  EXPECT_EQ(shown, full.text.substr(0, full.text.find(stop)));
  EXPECT_LE(st.generated_tokens, int(k + 2));
}

TEST(Chat, ContextOverflowErrorOrDropOldest) {
  auto llm = load_chat_model(128);
  const std::string msg = "abcdefghij";
  ChatSession strict(*llm);
  bool threw = false;
  for (int i = 0; i < 10 && !threw; ++i) {
    const size_t before = strict.messages().size();
    try {
      strict.say(msg, greedy(4), ignore);
    } catch (const LimitError& e) {
      threw = true;
      EXPECT_NE(std::string(e.what()).find("--drop-old-turns"), std::string::npos) << e.what();
      EXPECT_EQ(strict.messages().size(), before) << "the user message that did not fit is taken back";
    }
  }
  EXPECT_TRUE(threw);
  ChatSession dropping(*llm, {.overflow = ContextOverflow::DropOldest});
  for (int i = 0; i < 8; ++i) dropping.say(msg, greedy(4), ignore);
  EXPECT_GT(dropping.dropped_messages(), 0);
  EXPECT_EQ(dropping.messages().front().role, "user");
  EXPECT_EQ(dropping.messages().size() % 2, 0u);
  EXPECT_LT(int(dropping.prompt_tokens().size()), llm->context());
  // A message that cannot fit even alone.
  EXPECT_THROW(dropping.say(std::string(200, 'x'), greedy(4), ignore), LimitError);
}

TEST(Chat, CancelStopsTheReply) {
  auto llm = load_chat_model();
  ChatSession chat(*llm);
  std::atomic<bool> cancel{false};
  GenerateOptions g = greedy(-1);
  g.cancel = &cancel;
  int pieces = 0;
  GenerateStats st = chat.say("hi", g, [&](std::string_view) {
    if (++pieces == 3) cancel.store(true);
  });
  EXPECT_EQ(st.stop_reason, "cancelled");
  EXPECT_LT(st.generated_tokens, 60);
  EXPECT_EQ(chat.messages().back().content, st.text) << "the partial reply is kept";
  cancel.store(false);
  GenerateStats next = chat.say("again", greedy(3), ignore);
  EXPECT_EQ(next.stop_reason == "max_tokens" || next.stop_reason == "eos", true);
}
