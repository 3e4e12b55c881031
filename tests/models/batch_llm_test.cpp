// models::BatchLlm (src/models/batch_llm.h), the serving-batch graph: sequences run together in one step
// (decode rows of some, prefill chunks of others joining later, each in its own KV-cache slot) produce the
// same greedy tokens as each sequence run alone on a plain single-sequence Llm, on stories260K (llama,
// interleaved RoPE) and on the synthesized qwen2 chat model (rotate-half RoPE, GQA, q/k/v bias). And the
// slot-0 Llm interface: generate() on a BatchLlm equals generate() on an Llm; bad rows are refused.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "chat_model.h"
#include "model_test_util.h"
#include "models/batch_llm.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

struct Seq {
  std::vector<int32_t> tokens;  // prompt, then generated
  size_t prompt = 0, ran = 0;   // prompt length; tokens whose keys/values are in the cache
  int slot = 0, start_step = 0;
  std::vector<int32_t> out;
};

// Runs the sequences together: sequence i joins at its start_step; prefill in chunks of `chunk` rows per
// step beside the running decodes. Each generates `n` greedy tokens.
void run_together(models::BatchLlm& b, std::vector<Seq>& seqs, int n, size_t chunk) {
  for (int step = 0; step < 1000; ++step) {
    std::vector<models::BatchRow> rows;
    std::vector<int> outs;
    std::vector<Seq*> who;
    bool busy = false;
    for (Seq& s : seqs) {
      if (step < s.start_step || int(s.out.size()) >= n) {
        busy |= int(s.out.size()) < n;
        continue;
      }
      busy = true;
      const size_t end = s.ran < s.prompt ? std::min(s.prompt, s.ran + chunk) : s.tokens.size();
      for (size_t i = s.ran; i < end; ++i) rows.push_back({s.tokens[i], s.slot, int(i)});
      s.ran = end;
      if (end == s.tokens.size()) {
        outs.push_back(int(rows.size()) - 1);
        who.push_back(&s);
      }
    }
    if (!busy) return;
    if (rows.empty()) continue;
    if (outs.empty()) outs.push_back(0);  // a step of partial prefills: an output nobody reads
    models::StepOutput o = b.step(rows, outs, false);
    for (size_t i = 0; i < who.size(); ++i) {
      who[i]->out.push_back(o.argmax[i]);
      who[i]->tokens.push_back(o.argmax[i]);
    }
  }
  FAIL() << "did not finish";
}

void check_batched_equals_alone(const LlmOptions& opts, const std::vector<std::string>& prompts, int n) {
  auto single = Llm::load(opts);
  LlmOptions bo = opts;
  bo.max_prefill = 13;  // odd: prefill chunks and decode rows share steps of up to 13 rows
  auto batch = models::BatchLlm::load(bo, 4);
  std::vector<Seq> seqs;
  for (size_t i = 0; i < prompts.size(); ++i) {
    Seq s;
    s.tokens = single->tokenize(prompts[i], true);
    s.prompt = s.tokens.size();
    s.slot = int(prompts.size() - 1 - i);  // slots in reverse order of arrival
    s.start_step = int(i) * 3;
    seqs.push_back(s);
  }
  run_together(*batch, seqs, n, 5);
  for (size_t i = 0; i < seqs.size(); ++i) {
    std::vector<int32_t> want;
    std::vector<int32_t> seq = single->tokenize(prompts[i], true);
    for (int k = 0; k < n; ++k) {  // greedy, ignoring end tokens (the batch loop does too)
      EvalResult r = single->eval(seq, {});
      want.push_back(r.argmax);
      seq.push_back(r.argmax);
    }
    EXPECT_EQ(seqs[i].out, want) << "sequence " << i << " '" << prompts[i] << "'";
  }
}

}  // namespace

TEST(BatchLlm, ConcurrentSequencesEqualEachAloneStories) {
  check_batched_equals_alone(stories_bin_options(),
                             {"Once upon a time", "The cat sat on the mat and", "Lily", "One day a big dog ran to the park"}, 24);
}

TEST(BatchLlm, ConcurrentSequencesEqualEachAloneChatSynth) {
  LlmOptions o;
  o.model = chat_synth_path();
  check_batched_equals_alone(o, {"hello there", "a b c d e f g", "xyz"}, 20);
}

TEST(BatchLlm, SlotZeroLlmInterfaceEqualsPlainLlm) {
  auto single = Llm::load(stories_bin_options());
  auto batch = models::BatchLlm::load(stories_bin_options(), 2);
  GenerateOptions g;
  g.max_tokens = 40;
  auto ignore = [](std::string_view) {};
  GenerateStats a = single->generate("Once upon a time", g, ignore);
  GenerateStats b = batch->generate("Once upon a time", g, ignore);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.text, b.text);
  EXPECT_GT(a.generated_tokens, 10);
  // Logits of one position, both graphs: tolerance 1e-4 (same weights, different attention kernels).
  std::vector<int32_t> ids = single->tokenize("The dog", true);
  std::vector<float> la = single->forward(ids, 0), lb = batch->forward(ids, 0);
  EXPECT_LT(max_abs_diff(la, lb), 1e-4f);
}

TEST(BatchLlm, BadRowsAreRefused) {
  auto batch = models::BatchLlm::load(stories_bin_options(), 2);
  const int ctx = batch->context();
  std::vector<models::BatchRow> rows = {{1, 0, 0}};
  std::vector<int> out = {0};
  EXPECT_THROW(batch->step({}, out, false), InvalidArgument);
  EXPECT_THROW(batch->step(rows, std::vector<int>{}, false), InvalidArgument);
  EXPECT_THROW(batch->step(rows, std::vector<int>{1}, false), InvalidArgument);
  EXPECT_THROW(batch->step(std::vector<models::BatchRow>{{1, 2, 0}}, out, false), LimitError);
  EXPECT_THROW(batch->step(std::vector<models::BatchRow>{{1, 0, ctx}}, out, false), LimitError);
  EXPECT_THROW(batch->step(std::vector<models::BatchRow>{{99999, 0, 0}}, out, false), InvalidArgument);
  EXPECT_EQ(batch->step(rows, out, false).argmax.size(), 1u);  // still usable
}
