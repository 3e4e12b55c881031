// models::BatchLlm (src/models/batch_llm.h), the serving-batch graph: sequences run together in one step
// (decode rows of some, prefill chunks of others joining later, each in its own KV-cache slot) produce the
// same greedy tokens as each sequence run alone on a plain single-sequence Llm, on stories260K (llama,
// interleaved RoPE), on the synthesized qwen2 chat model (rotate-half RoPE, GQA, q/k/v bias) and on synthesized
// gemma2 / gemma3 models (wgrt.sdpa_batched_swa: score soft cap, a sliding window of 8 that prompt + generated
// tokens outrun, gemma3's local layers with their own RoPE base). And the
// slot-0 Llm interface: generate() on a BatchLlm equals generate() on an Llm; bad rows are refused; GPU draws
// per output row (wgrt.sample with per-row parameters) equal the row drawn alone.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "chat_model.h"
#include "formats/ggml_type.h"
#include "model_test_util.h"
#include "models/batch_llm.h"
#include "models/synth.h"
#include "text/sampler.h"
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

// Returns the generated ids of every sequence (for the caller's non-degeneracy checks).
std::vector<std::vector<int32_t>> check_batched_equals_alone(const LlmOptions& opts, const std::vector<std::string>& prompts,
                                                             int n) {
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
  std::vector<std::vector<int32_t>> outs;
  for (const Seq& s : seqs) outs.push_back(s.out);
  return outs;
}

// A small gemma2 / gemma3 synth (F32; the family test's shapes, families_llamacpp_test.cpp): soft-capped scores
// and a sliding window of 8 on every other (gemma2) or 2 of 3 (gemma3) layers.
std::string gemma_synth_path(const std::string& arch) {
  models::SynthConfig c{.name = "tiny-" + arch, .arch = arch, .dim = 128, .ffn = 256, .layers = 6, .heads = 4,
                        .kv_heads = 2, .head_dim = 32, .vocab = 320, .context = 128, .rope_theta = 10000.0f,
                        .rms_eps = 1e-6f, .init_std = 0.03f, .random_norms = true};
  c.sliding_window = 8;
  if (arch == "gemma2") {
    c.swa_pattern = 2, c.attn_softcap = 1.0f, c.final_softcap = 0.5f;
  } else {
    c.swa_pattern = 3, c.rope_theta = 1e6f, c.rope_theta_swa = 10000.0f, c.init_std = 0.05f;
  }
  auto p = std::filesystem::temp_directory_path() / fmt::format("wgrt_batch_{}_{}.gguf", arch, getpid());
  models::synth_gguf(c, GgmlType::F32, 5).write(p.string());
  return p.string();
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

TEST(BatchLlm, ConcurrentSequencesEqualEachAloneGemma) {
  for (const char* arch : {"gemma2", "gemma3"}) {
    SCOPED_TRACE(arch);
    LlmOptions o;
    o.model = gemma_synth_path(arch);
    // Prompts of 4-16 tokens + 20 generated: every sequence outruns the window of 8.
    auto outs = check_batched_equals_alone(o, {"hello there friend", "a b c d e f g h i j", "xyz", "the quick brown fox jumps"}, 20);
    std::set<int32_t> distinct;
    for (const auto& v : outs) distinct.insert(v.begin(), v.end());
    EXPECT_GT(distinct.size(), 4u) << "degenerate model: the comparison could not fail";
    std::filesystem::remove(o.model);
  }
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

// GPU draws inside the step, one parameter set per output row (the server's path): a sampled row's token lies
// in the CPU sampler's kept set of that row's logits and equals the same row stepped alone; a greedy row beside
// it is the argmax (sampled -1); bad sampling lists or parameters are refused and the model stays usable.
TEST(BatchLlm, GpuDrawsPerRowEqualTheRowAlone) {
  auto batch = models::BatchLlm::load(stories_bin_options(), 2);
  const std::vector<int32_t> a = batch->tokenize("Once upon a time", true), b = batch->tokenize("The cat sat", true);
  std::vector<models::BatchRow> rows;
  for (size_t i = 0; i < a.size(); ++i) rows.push_back({a[i], 0, int(i)});
  for (size_t i = 0; i < b.size(); ++i) rows.push_back({b[i], 1, int(i)});
  const std::vector<int> outs = {int(a.size()) - 1, int(rows.size()) - 1};
  const size_t V = size_t(batch->vocab_size());
  std::set<int32_t> drawn;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    models::RowSampling s;
    s.on = true;
    s.config = {.temperature = 4.0f, .top_k = 20, .seed = seed};  // hot: the next token after the prompt is nearly certain
    s.step = a.size();
    s.history = a;
    const std::vector<models::RowSampling> draws = {s, models::RowSampling{}};
    models::StepOutput o = batch->step(rows, outs, true, draws);
    ASSERT_EQ(o.sampled.size(), 2u);
    ASSERT_EQ(o.argmax.size(), 2u);
    const int32_t t = o.sampled[0];
    EXPECT_EQ(o.sampled[1], -1);  // the greedy row: its token is the argmax
    const std::vector<float> row1(o.logits.begin() + long(V), o.logits.begin() + long(2 * V));
    EXPECT_EQ(o.argmax[1], int32_t(std::max_element(row1.begin(), row1.end()) - row1.begin()));
    text::Sampler cpu(text::SamplerConfig{.temperature = 4.0f, .top_k = 20, .seed = seed});
    bool kept = false;
    for (const auto& tp : cpu.distribution(std::span<const float>(o.logits.data(), V), a)) kept |= tp.id == t;
    EXPECT_TRUE(kept) << "seed " << seed << " drew " << t << " outside the CPU sampler's top 20";
    // Alone: slot 0's last row only (its keys/values are in the cache), same draw entry.
    const std::vector<models::BatchRow> last = {{a.back(), 0, int(a.size()) - 1}};
    const std::vector<models::RowSampling> one = {s};
    models::StepOutput alone = batch->step(last, std::vector<int>{0}, false, one);
    EXPECT_TRUE(alone.argmax.empty());  // every output drawn: no argmax read back
    EXPECT_EQ(alone.sampled, std::vector<int32_t>{t}) << "seed " << seed;
    drawn.insert(t);
  }
  EXPECT_GT(drawn.size(), 1u) << "every seed drew the same token: the comparison could not fail";
  models::RowSampling bad;
  bad.on = true;
  bad.config.temperature = 0.0f;
  EXPECT_THROW(batch->step(rows, outs, false, std::vector<models::RowSampling>{bad, bad}), InvalidArgument);
  EXPECT_THROW(batch->step(rows, outs, false, std::vector<models::RowSampling>{models::RowSampling{}}), InvalidArgument);
  EXPECT_EQ(batch->step(rows, outs, false).argmax.size(), 2u);  // still usable
}

// The fused layer body in the serving batch (LlamaGraphOptions::fuse with slots; the policy's fused_gemv, forced
// on here through WGRT_FUSED_GEMV=1 since CPU adapters keep the separate ops): q4gsw (Q4_0) fuses, a block format
// (Q8_0) keeps the unfused body (the graph's rule for serving), against the unfused serving graph on the same
// file. Steps: 8 prompts prefilled together (36 rows: the GEMM route), 8-row decode steps (M = 8), a
// 3-row step (M = 3). The two graphs compute the same function in another order: logits within 1e-4 relative to
// the largest |logit|, the same argmax; a Q4_0 decode step runs 3 dispatches per layer + 1 fewer fused.
TEST(BatchLlm, FusedLayerBodyEqualsUnfused) {
  for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q8_0}) {
    SCOPED_TRACE(ggml_type_name(type));
    models::SynthConfig c{.name = "tiny-fused", .arch = "llama", .dim = 128, .ffn = 224, .layers = 3, .heads = 4,
                          .kv_heads = 2, .head_dim = 32, .vocab = 300, .context = 64, .rope_theta = 10000.0f,
                          .rms_eps = 1e-5f, .init_std = 0.2f, .random_norms = true};
    auto path = std::filesystem::temp_directory_path() / fmt::format("wgrt_batch_fused_{}.gguf", getpid());
    models::synth_gguf(c, type, 9).write(path.string());
    LlmOptions o;
    o.model = path.string();
    o.max_prefill = 40;
    auto plain = models::BatchLlm::load(o, 8);
    ::setenv("WGRT_FUSED_GEMV", "1", 1);
    auto fused = models::BatchLlm::load(o, 8);
    ::unsetenv("WGRT_FUSED_GEMV");
    std::vector<std::vector<int32_t>> seqs;
    std::vector<models::BatchRow> rows;
    std::vector<int> outs;
    for (int s = 0; s < 8; ++s) {  // prompts of 1..8 tokens
      seqs.push_back({});
      for (int i = 0; i <= s; ++i) {
        seqs.back().push_back(int32_t((7 * s + 13 * i + 1) % c.vocab));
        rows.push_back({seqs.back().back(), s, i});
      }
      outs.push_back(int(rows.size()) - 1);
    }
    std::set<int32_t> distinct;
    for (int step = 0; step < 5; ++step) {
      models::StepOutput a = plain->step(rows, outs, true), b = fused->step(rows, outs, true);
      float mx = 0;
      for (float v : a.logits) mx = std::max(mx, std::fabs(v));
      EXPECT_GT(mx, 0.5f);
      EXPECT_LT(max_abs_diff(a.logits, b.logits), 1e-4f * std::max(1.0f, mx)) << "step " << step;
      ASSERT_EQ(a.argmax, b.argmax) << "step " << step;
      // q4gsw fuses; block formats keep the unfused body in the serving batch (the graph's rule).
      const size_t fewer = type == GgmlType::Q4_0 ? 3 * size_t(c.layers) + 1 : 0;
      if (step > 0) EXPECT_EQ(fused->step_dispatches() + fewer, plain->step_dispatches()) << "step " << step;
      if (step == 4) break;             // the last step: nothing to feed
      const int n = step == 3 ? 3 : 8;  // the last step: 3 rows (slots 0..2)
      rows.clear();
      outs.clear();
      for (int s = 0; s < n; ++s) {
        seqs[size_t(s)].push_back(a.argmax[size_t(s)]);
        distinct.insert(a.argmax[size_t(s)]);
        rows.push_back({seqs[size_t(s)].back(), s, int(seqs[size_t(s)].size()) - 1});
        outs.push_back(s);
      }
    }
    EXPECT_GT(distinct.size(), 3u) << "degenerate model: the comparison could not fail";
    std::filesystem::remove(path);
  }
}

// copy_prefix (the server's shared prefill): slot 0 prefilled with a prompt, its first n - 1 positions copied
// into slots 2 and 1 (2 first: the copy must land in the named slot only), and each then runs the last prompt
// token alone: the logits equal slot 0's own (1e-4 relative to the largest |logit|: another row count, the
// same cached keys/values), and greedy decoding on from there equals slot 0's. Slot 1 first holds another
// prompt, so a copy that did not land would show. Bad slots and counts are refused.
TEST(BatchLlm, CopiedPrefixEqualsItsOwnPrefill) {
  auto batch = models::BatchLlm::load(stories_bin_options(), 3);
  const std::vector<int32_t> p = batch->tokenize("Once upon a time there was a little dog", true),
                             other = batch->tokenize("The cat sat on the mat and looked", true);
  std::vector<models::BatchRow> rows;
  for (size_t i = 0; i < p.size(); ++i) rows.push_back({p[i], 0, int(i)});
  for (size_t i = 0; i < other.size(); ++i) rows.push_back({other[i], 1, int(i)});
  const std::vector<int> outs = {int(p.size()) - 1, int(rows.size()) - 1};
  models::StepOutput first = batch->step(rows, outs, true);
  const size_t V = size_t(batch->vocab_size());
  const std::vector<float> want(first.logits.begin(), first.logits.begin() + long(V));
  float mx = 0;
  for (float v : want) mx = std::max(mx, std::fabs(v));
  const int n = int(p.size()) - 1;
  batch->copy_prefix(0, 2, n);
  batch->copy_prefix(0, 1, n);
  for (int slot : {1, 2}) {
    models::StepOutput o = batch->step(std::vector<models::BatchRow>{{p.back(), slot, n}}, std::vector<int>{0}, true);
    EXPECT_LT(max_abs_diff(o.logits, want), 1e-4f * std::max(1.0f, mx)) << "slot " << slot;
    EXPECT_EQ(o.argmax[0], first.argmax[0]) << "slot " << slot;
  }
  // Greedy on: slots 0 and 1 step together and stay equal (and differ from what slot 1's own prompt gave).
  std::vector<int32_t> a = {first.argmax[0]}, b = {first.argmax[0]};
  for (int k = 0; k < 12; ++k) {
    const std::vector<models::BatchRow> r = {{a.back(), 0, n + 1 + k}, {b.back(), 1, n + 1 + k}};
    models::StepOutput o = batch->step(r, std::vector<int>{0, 1}, false);
    a.push_back(o.argmax[0]);
    b.push_back(o.argmax[1]);
  }
  EXPECT_EQ(a, b);
  EXPECT_GT(std::set<int32_t>(a.begin(), a.end()).size(), 3u);
  EXPECT_THROW(batch->copy_prefix(0, 3, 1), LimitError);
  EXPECT_THROW(batch->copy_prefix(-1, 1, 1), LimitError);
  EXPECT_THROW(batch->copy_prefix(0, 1, batch->context() + 1), LimitError);
  EXPECT_THROW(batch->copy_prefix(1, 1, 1), InvalidArgument);
  batch->copy_prefix(0, 1, 0);  // nothing to copy
}
