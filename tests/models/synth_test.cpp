// `wgrt synth` generator (src/models/synth.h): files read back with wgrt's GGUF reader carry the configured
// metadata, vocabulary and weight statistics; the GPU engine on synthesized tiny models (llama with GQA; qwen2
// with q/k/v biases, NEOX RoPE and heads*head_dim != dim) matches the CPU reference (tests/support/cpu_llama.h)
// for Q4_0 and F16 weights; the presets have the published parameter counts of the real models; bad configs are
// rejected. Tolerance: logits within 1e-3 absolute of the fp64-accumulated CPU reference (logits are O(1) here).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "formats/gguf.h"
#include "formats/model_weights.h"
#include "model_test_util.h"
#include "models/synth.h"
#include "support/synth_model.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::test;
using wgrt::models::SynthConfig;

namespace {

constexpr float kLogitTol = 1e-3f;

SynthConfig tiny_llama() {
  return {.name = "tiny-llama", .arch = "llama", .dim = 64, .ffn = 96, .layers = 2, .heads = 4, .kv_heads = 2,
          .head_dim = 16, .vocab = 300, .context = 64, .rope_theta = 500000.0f, .rms_eps = 1e-5f, .init_std = 0.1f};
}

SynthConfig tiny_qwen2() {
  return {.name = "tiny-qwen2", .arch = "qwen2", .dim = 64, .ffn = 160, .layers = 3, .heads = 2, .kv_heads = 1,
          .head_dim = 48, .vocab = 333, .context = 48, .rope_theta = 1000000.0f, .rms_eps = 1e-6f,
          .qkv_bias = true, .init_std = 0.1f};
}

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("wgrt_synth_" + name)).string();
}

std::string write_synth(const SynthConfig& c, GgmlType type, uint64_t seed = 7) {
  std::string path = temp_file(c.name + "_" + ggml_type_name(type) + ".gguf");
  models::synth_gguf(c, type, seed).write(path);
  return path;
}

double stddev(const std::vector<float>& v) {
  double m = 0, s = 0;
  for (float x : v) m += x;
  m /= double(v.size());
  for (float x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size()));
}

}  // namespace

TEST(Synth, PresetsHaveThePublishedParameterCounts) {
  // Totals of the real checkpoints (safetensors metadata of meta-llama/Llama-3.2-1B, Qwen/Qwen2.5-0.5B,
  // HuggingFaceTB/SmolLM2-135M, tied classifiers, and the three below).
  EXPECT_EQ(models::synth_param_count(models::synth_preset("llama-3.2-1b")), 1235814400u);
  EXPECT_EQ(models::synth_param_count(models::synth_preset("qwen2.5-0.5b")), 494032768u);
  EXPECT_EQ(models::synth_param_count(models::synth_preset("smollm2-135m")), 134515008u);
  // google/gemma-2-2b, google/gemma-3-1b-pt (tied, with post-norms; gemma3 q/k norms), microsoft/Phi-3-mini-4k-instruct.
  EXPECT_EQ(models::synth_param_count(models::synth_preset("gemma-2-2b")), 2614341888u);
  EXPECT_EQ(models::synth_param_count(models::synth_preset("gemma-3-1b")), 999885952u);
  EXPECT_EQ(models::synth_param_count(models::synth_preset("phi-3-mini-4k")), 3821079552u);
  // Qwen/Qwen3-0.6B and HuggingFaceTB/SmolLM3-3B: the totals their config.json shapes give (model cards:
  // "0.6B, 0.44B non-embedding" = 440,467,456 here; "3B" (3.08B)).
  EXPECT_EQ(models::synth_param_count(models::synth_preset("qwen3-0.6b")), 596049920u);
  EXPECT_EQ(models::synth_param_count(models::synth_preset("smollm3-3b")), 3075098624u);
  // baidu/ERNIE-4.5-0.3B-PT: its config.json shapes (model card: 0.36B).
  EXPECT_EQ(models::synth_param_count(models::synth_preset("ernie-4.5-0.3b")), 360748032u);
  EXPECT_THROW(models::synth_preset("llama-7b"), InvalidArgument);
  for (const auto& p : models::synth_presets()) {
    EXPECT_NO_THROW(models::validate_synth(p, GgmlType::Q4_0)) << p.name;
    if (!p.arch.starts_with("gemma") && p.arch != "qwen3" && p.arch != "ernie4_5")  // q_dim != dim
      EXPECT_EQ(p.dim, p.heads * p.head_dim) << p.name;
  }
}

TEST(Synth, MetadataVocabularyAndWeightsReadBack) {
  const SynthConfig c = tiny_qwen2();
  const std::string path = write_synth(c, GgmlType::F16);
  GgufFile g = GgufFile::open(path);
  EXPECT_EQ(g.get_string("general.architecture"), "qwen2");
  EXPECT_EQ(g.get_u32("general.file_type"), 1u);
  EXPECT_EQ(g.get_u32("qwen2.context_length"), 48u);
  EXPECT_EQ(g.get_u32("qwen2.embedding_length"), 64u);
  EXPECT_EQ(g.get_u32("qwen2.block_count"), 3u);
  EXPECT_EQ(g.get_u32("qwen2.feed_forward_length"), 160u);
  EXPECT_EQ(g.get_u32("qwen2.attention.head_count"), 2u);
  EXPECT_EQ(g.get_u32("qwen2.attention.head_count_kv"), 1u);
  EXPECT_EQ(g.get_u32("qwen2.rope.dimension_count"), 48u);
  EXPECT_EQ(g.get_f32("qwen2.attention.layer_norm_rms_epsilon"), 1e-6f);
  EXPECT_EQ(g.get_f32("qwen2.rope.freq_base"), 1000000.0f);
  // Vocabulary: exactly `vocab` entries, specials, 256 byte tokens, fillers with descending scores.
  auto tokens = g.get_array_strings("tokenizer.ggml.tokens");
  auto scores = g.get_array_f32("tokenizer.ggml.scores");
  auto types = g.get_array_i32("tokenizer.ggml.token_type");
  ASSERT_EQ(tokens.size(), 333u);
  ASSERT_EQ(scores.size(), 333u);
  ASSERT_EQ(types.size(), 333u);
  EXPECT_EQ(tokens[0], "<unk>");
  EXPECT_EQ(tokens[1], "<s>");
  EXPECT_EQ(tokens[2], "</s>");
  EXPECT_EQ(tokens[3], "<0x00>");
  EXPECT_EQ(tokens[3 + 0x0A], "<0x0A>");
  EXPECT_EQ(tokens[258], "<0xFF>");
  EXPECT_EQ(tokens[259], "\xE2\x96\x81w0");
  EXPECT_EQ(tokens[332], "\xE2\x96\x81w73");
  EXPECT_EQ(types[0], 2);
  EXPECT_EQ(types[1], 3);
  EXPECT_EQ(types[100], 6);
  EXPECT_EQ(types[300], 1);
  for (size_t i = 260; i < scores.size(); ++i) ASSERT_LT(scores[i], scores[i - 1]) << i;
  EXPECT_EQ(g.get_u32("tokenizer.ggml.bos_token_id"), 1u);
  EXPECT_EQ(g.get_u32("tokenizer.ggml.eos_token_id"), 2u);
  // Weights: through the model loader (canonical names and shapes validated there).
  WeightSource w = load_gguf_llama(path);
  const LlamaConfig& lc = w.config();
  EXPECT_EQ(lc.arch, "qwen2");
  EXPECT_EQ(lc.dim, 64);
  EXPECT_EQ(lc.hidden_dim, 160);
  EXPECT_EQ(lc.n_layers, 3);
  EXPECT_EQ(lc.head_dim, 48);
  EXPECT_EQ(lc.vocab_size, 333);
  EXPECT_FALSE(lc.rope_interleaved);
  EXPECT_TRUE(lc.tied_embeddings);
  EXPECT_TRUE(lc.has_qkv_bias);
  EXPECT_FALSE(w.has("output"));
  EXPECT_EQ(w.get("tok_embd").type, GgmlType::F16);
  EXPECT_EQ(w.get("blk.0.attn_q.bias").type, GgmlType::F32);
  EXPECT_EQ(w.get("blk.2.attn_q").shape, (std::vector<int64_t>{96, 64}));
  for (float x : w.get("blk.1.ffn_norm").to_f32()) ASSERT_EQ(x, 1.0f);
  auto emb = w.get("tok_embd").to_f32();
  EXPECT_NEAR(stddev(emb), 0.1, 0.005);  // 21312 values: sampling error of the std ~0.5%
  float mx = 0;
  for (float x : emb) mx = std::max(mx, std::fabs(x));
  EXPECT_LE(mx, 0.1f * std::sqrt(12.0f) + 1e-3f);  // Irwin-Hall(4) bound: 2*sqrt(3) std
  EXPECT_GT(mx, 0.2f);
  // Tensors differ from each other (per-tensor streams).
  EXPECT_NE(w.get("blk.0.ffn_up").to_f32(), w.get("blk.0.ffn_gate").to_f32());
  std::remove(path.c_str());
}

TEST(Synth, SameSeedSameBytesOtherSeedOtherWeights) {
  const SynthConfig c = tiny_llama();
  auto a = models::synth_gguf(c, GgmlType::Q4_0, 1).to_bytes();
  auto b = models::synth_gguf(c, GgmlType::Q4_0, 1).to_bytes();
  auto d = models::synth_gguf(c, GgmlType::Q4_0, 2).to_bytes();
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), d.size());
  EXPECT_NE(a, d);
  // write() streams the same bytes as to_bytes().
  const std::string path = write_synth(c, GgmlType::Q4_0, 1);
  EXPECT_EQ(read_file(path), a);
  std::remove(path.c_str());
}

TEST(Synth, RejectsBadConfigs) {
  auto expect_bad = [](SynthConfig c, GgmlType t = GgmlType::Q4_0) {
    EXPECT_THROW(models::synth_gguf(c, t), InvalidArgument) << c.name;
  };
  SynthConfig c = tiny_llama();
  c.arch = "gpt2";
  expect_bad(c);
  c = tiny_llama(), c.heads = 3;  // not a multiple of kv_heads 2
  expect_bad(c);
  c = tiny_llama(), c.dim = 48;  // not a multiple of 32 for Q4_0 ...
  expect_bad(c);
  EXPECT_NO_THROW(models::validate_synth(c, GgmlType::F16));  // ... fine for F16
  c = tiny_llama(), c.vocab = 259;  // no room for a single filler token
  expect_bad(c);
  c = tiny_llama(), c.layers = 0;
  expect_bad(c);
  c = tiny_llama(), c.head_dim = 15;
  expect_bad(c, GgmlType::F16);
  c = tiny_llama(), c.init_std = NAN;
  expect_bad(c);
  expect_bad(tiny_llama(), GgmlType::Q4_K);
}

// GPU forward (prefill of 6 tokens, then 10 decode steps) against the CPU reference at every step.
void expect_gpu_matches_cpu(const SynthConfig& c, GgmlType type) {
  const std::string path = write_synth(c, type);
  LlmOptions o;
  o.model = path;
  auto llm = Llm::load(o);
  ASSERT_EQ(llm->vocab_size(), c.vocab);
  ASSERT_EQ(llm->context(), c.context);
  WeightSource w = load_gguf_llama(path);
  CpuLlama cpu(w.config(), w, llm_kv_f16(w.config()));
  std::vector<int32_t> prompt = {1, 17, 259, 298, 4, 150};
  std::vector<float> ref;
  for (size_t i = 0; i < prompt.size(); ++i) ref = cpu.forward(prompt[i], int(i));
  std::vector<float> gpu = llm->forward(prompt, 0);
  ASSERT_LT(max_abs_diff(gpu, ref), kLogitTol);
  float mx = 0;
  for (float l : ref) mx = std::max(mx, std::fabs(l));
  EXPECT_GT(mx, 0.3f);  // logits are not trivially small: the tolerance is meaningful
  int tok = argmax(gpu);
  for (int pos = int(prompt.size()); pos < int(prompt.size()) + 10; ++pos) {
    gpu = llm->forward({tok}, pos);
    ref = cpu.forward(tok, pos);
    ASSERT_LT(max_abs_diff(gpu, ref), kLogitTol) << "pos " << pos;
    tok = (argmax(ref) + pos) % c.vocab;  // vary the input even if the model repeats itself
  }
  // generate() runs end to end (greedy, no prompt: from BOS).
  GenerateOptions g;
  g.max_tokens = 5;
  auto st = llm->generate("", g, [](std::string_view) {});
  EXPECT_TRUE(st.stop_reason == "max_tokens" || st.stop_reason == "eos") << st.stop_reason;
  std::remove(path.c_str());
}

TEST(Synth, TinyLlamaQ4_0MatchesCpuReference) { expect_gpu_matches_cpu(tiny_llama(), GgmlType::Q4_0); }
TEST(Synth, TinyLlamaF16MatchesCpuReference) { expect_gpu_matches_cpu(tiny_llama(), GgmlType::F16); }
TEST(Synth, TinyQwen2Q4_0MatchesCpuReference) {
  SynthConfig c = tiny_qwen2();
  expect_gpu_matches_cpu(c, GgmlType::Q4_0);
}
TEST(Synth, TinyQwen2F16MatchesCpuReference) { expect_gpu_matches_cpu(tiny_qwen2(), GgmlType::F16); }

TEST(Synth, SmolLM2PresetQ4_0WritesLoadsAndGenerates) {
  const auto& c = models::synth_preset("smollm2-135m");
  const std::string path = temp_file("smollm2-135m_q4_0.gguf");
  auto t0 = std::chrono::steady_clock::now();
  models::synth_gguf(c, GgmlType::Q4_0, 0).write(path);
  GgufFile g = GgufFile::open(path);
  EXPECT_EQ(g.tensor("token_embd.weight").dims, (std::vector<uint64_t>{576, 49152}));
  EXPECT_EQ(g.get_array_strings("tokenizer.ggml.tokens").size(), 49152u);
  LlmOptions o;
  o.model = path;
  o.context = 32;
  auto llm = Llm::load(o);
  GenerateOptions gen;
  gen.max_tokens = 4;
  auto st = llm->generate("", gen, [](std::string_view) {});
  EXPECT_GE(st.generated_tokens, 1);
  for (int32_t t : st.tokens) EXPECT_TRUE(t >= 0 && t < c.vocab);
  std::remove(path.c_str());
  RecordProperty("seconds", std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
}
