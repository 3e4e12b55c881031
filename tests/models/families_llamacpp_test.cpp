// Model families and RoPE scaling against llama.cpp on the same file (tests/models/llamacpp_oracle.h):
// wgrt-synthesized F32 models with std-0.2 weights (gemma: 0.05, kGemmaStd) and jittered norm weights (so greedy ids vary and a wrong
// norm shows) for Llama 3 rope_freqs, linear and YaRN RoPE scaling at positions up to ~330 (past the
// scaling's original context, where it changes the angles), gemma2 (soft-capping, sliding window every other
// layer), gemma3 (q/k norms, 2 local : 1 global layers with their own RoPE base and linear scaling on the
// global ones), qwen3 (q/k norms), smollm3 (no RoPE on every 4th layer), ernie4_5 (llama's layers) and phi3 (fused qkv and gate/up,
// LongRoPE long and short factors). Per model: first-step logits
// within kTol of llama.cpp's (relative to the largest |logit|) and 32 greedy ids equal; the same model
// quantized to Q8_0 by llama.cpp (its quantizer accepts the file) runs in wgrt within kTol of llama.cpp on the
// F32 rewrite. Each RoPE scaling and gemma case also runs the model without the feature (plain RoPE; no
// window or caps; all layers global) and checks it misses by far more, so the test fails if it were ignored.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "llamacpp_oracle.h"
#include "model_test_util.h"
#include "models/synth.h"

namespace wgrt::test {
namespace {

namespace fs = std::filesystem;
// llama.cpp's CPU GELU rounds its input to f16 and reads an f16 table (ggml-cpu vec.h GGML_GELU_FP16), so
// GeGLU models differ by ~1e-3 relative per activation (seen: 3-5e-4 of max |logit|); f32 paths agree to ~1e-5.
constexpr float kTol = 1e-4f, kTolGelu = 5e-3f;
constexpr int kGen = 32;
// Gemma scales embeddings by sqrt(dim) and ties the classifier to them: with std 0.2 the residual stream is
// the input token's own embedding and greedy decoding repeats the last token; the post-normed blocks dominate
// at 0.05 (gemma3) and 0.03 (gemma2, whose soft caps are set low enough to bite: 1 on scores, 0.5 on logits).
constexpr float kGemmaStd = 0.05f;

fs::path scratch() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("wgrt_families_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}
struct RemoveFiles : ::testing::Environment {
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(scratch(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const kRemoveFiles = ::testing::AddGlobalTestEnvironment(new RemoveFiles);

std::vector<int32_t> prompt_of(int n, int vocab) {
  std::vector<int32_t> p = {1};
  uint32_t s = 12345;
  while (int(p.size()) < n) {
    s = s * 1664525u + 1013904223u;
    p.push_back(int32_t(3 + (s >> 8) % uint32_t(vocab - 3)));
  }
  return p;
}

models::SynthConfig base(const std::string& name, const std::string& arch) {
  return {.name = name, .arch = arch, .dim = 128, .ffn = 256, .layers = 2, .heads = 4, .kv_heads = 2, .head_dim = 32,
          .vocab = 320, .context = 512, .rope_theta = 10000.0f, .rms_eps = 1e-5f, .init_std = 0.2f, .random_norms = true};
}

struct Case {
  models::SynthConfig cfg;
  int prompt = 7;
  int context = 0;            // wgrt's --ctx (0: the model's)
  bool ablate = false;        // `plain` (the model without the feature under test) must differ by far more
  models::SynthConfig plain;  // than wgrt's distance to llama.cpp
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.cfg.name; }

std::vector<Case> cases() {
  std::vector<Case> r;
  {
    Case c{base("llama3-rope", "llama"), 300};
    c.plain = c.cfg;
    c.cfg.llama3_factor = 8, c.cfg.llama3_low = 1, c.cfg.llama3_high = 4, c.cfg.llama3_orig = 32;
    c.ablate = true;
    r.push_back(c);
  }
  for (const char* t : {"linear", "yarn"}) {
    Case c{base(std::string(t) + "-rope", "qwen2"), 300};
    c.plain = c.cfg;
    c.cfg.rope_scaling_type = t, c.cfg.rope_factor = 4, c.cfg.rope_orig_context = 64;
    c.ablate = true;
    r.push_back(c);
  }
  {
    Case c{base("gemma2", "gemma2"), 20};  // 20 > the window of 8
    c.cfg.layers = 6, c.cfg.sliding_window = 8, c.cfg.swa_pattern = 2, c.cfg.attn_softcap = 1.0f, c.cfg.final_softcap = 0.5f;
    c.cfg.rms_eps = 1e-6f;
    c.cfg.init_std = 0.03f;
    c.plain = c.cfg;
    c.plain.sliding_window = 0, c.plain.attn_softcap = 0, c.plain.final_softcap = 0;  // llama.cpp: 4096, 50, 30
    c.ablate = true;
    r.push_back(c);
  }
  {
    Case c{base("gemma3", "gemma3"), 20};
    c.cfg.layers = 6, c.cfg.sliding_window = 8, c.cfg.swa_pattern = 3, c.cfg.rope_theta = 1e6f, c.cfg.rope_theta_swa = 10000.0f;
    c.cfg.rope_scaling_type = "linear", c.cfg.rope_factor = 8;
    c.cfg.init_std = kGemmaStd;
    c.plain = c.cfg;
    c.plain.sliding_window = 0, c.plain.rope_theta_swa = 0;  // every layer global
    c.ablate = true;
    r.push_back(c);
  }
  {
    Case c{base("qwen3", "qwen3"), 20};  // q/k norms, heads * head_dim (192) != dim (128)
    c.cfg.heads = 6, c.cfg.kv_heads = 2;
    r.push_back(c);
  }
  {
    Case c{base("smollm3", "smollm3"), 20};  // layers 3 and 7 have no RoPE
    c.cfg.layers = 8;
    c.plain = c.cfg;
    c.plain.arch = "llama";  // the same weights with RoPE on every layer
    c.ablate = true;
    r.push_back(c);
  }
  {
    Case c{base("ernie4_5", "ernie4_5"), 20};  // llama's layers (interleaved RoPE), heads * head_dim != dim
    c.cfg.heads = 8;
    r.push_back(c);
  }
  {
    Case c{base("phi3", "phi3"), 7};
    c.cfg.tied = false, c.cfg.control_tokens = {"<|endoftext|>"};  // llama.cpp's phi3 vocab fix-up needs it
    r.push_back(c);
  }
  for (int long_ctx : {0, 1}) {  // LongRoPE: short factors for a context up to orig (300), long beyond
    Case c{base(long_ctx ? "phi3-longrope-long" : "phi3-longrope-short", "phi3"), long_ctx ? 300 : 7};
    c.cfg.tied = false, c.cfg.longrope_factors = 30, c.cfg.rope_orig_context = 300;
    c.cfg.control_tokens = {"<|endoftext|>"};
    c.context = long_ctx ? 0 : 64;
    c.plain = c.cfg;
    c.plain.longrope_factors = 0;
    c.ablate = true;
    r.push_back(c);
  }
  return r;
}

// wgrt's first-step logits and kGen greedy ids.
LlamaCppRun wgrt_run(const std::string& model, const std::vector<int32_t>& prompt, int context) {
  LlmOptions o;
  o.model = model;
  o.context = context;
  o.cache_type = "f32";  // as llama.cpp's run (llamacpp_oracle.h)
  auto llm = Llm::load(o);
  LlamaCppRun r;
  r.logits = llm->forward(prompt, 0);
  int pos = int(prompt.size()), tok = argmax(r.logits);
  for (int g = 0; g < kGen; ++g) {
    r.ids.push_back(tok);
    if (g + 1 < kGen) tok = argmax(llm->forward({tok}, pos++));
  }
  return r;
}

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

class FamiliesLlamaCpp : public ::testing::TestWithParam<Case> {};

TEST_P(FamiliesLlamaCpp, MatchesLlamaCppOnTheSameFile) {
  ASSERT_TRUE(llamacpp_available()) << llamacpp_missing();
  const Case& c = GetParam();
  const std::string f32 = (scratch() / (c.cfg.name + ".gguf")).string();
  models::synth_gguf(c.cfg, GgmlType::F32, 7).write(f32);
  const std::vector<int32_t> prompt = prompt_of(c.prompt, c.cfg.vocab);
  const bool gelu = c.cfg.arch.starts_with("gemma");
  const float tol = gelu ? kTolGelu : kTol;

  const LlamaCppRun ref = llamacpp_run(f32, prompt, kGen);
  const LlamaCppRun got = wgrt_run(f32, prompt, c.context);
  ASSERT_EQ(ref.logits.size(), got.logits.size());
  const float mx = max_abs(ref.logits), diff = max_abs_diff(got.logits, ref.logits);
  EXPECT_GT(mx, c.cfg.final_softcap > 0 ? 0.4f * c.cfg.final_softcap : 1.0f) << "logits are not trivially small";
  EXPECT_LT(diff, tol * mx) << "first-step logits vs llama.cpp";
  EXPECT_EQ(got.ids, ref.ids) << "32 greedy ids vs llama.cpp";
  EXPECT_GE(std::set<int32_t>(got.ids.begin(), got.ids.end()).size(), 3u) << "greedy ids are (nearly) constant: " << ::testing::PrintToString(got.ids);
  std::printf("[ %s ] prompt %d: max |logit| %.3f, max diff %.2e (%.1e relative), ids equal %d\n", c.cfg.name.c_str(),
              c.prompt, mx, diff, diff / mx, int(got.ids == ref.ids));

  if (c.ablate) {  // without the feature the same weights are far off: it is applied, not ignored
    const std::string plain = (scratch() / (c.cfg.name + ".plain.gguf")).string();
    models::synth_gguf(c.plain, GgmlType::F32, 7).write(plain);
    const float off = max_abs_diff(wgrt_run(plain, prompt, c.context).logits, ref.logits);
    std::printf("[ %s ] without it: max diff %.3f\n", c.cfg.name.c_str(), off);
    EXPECT_GT(off, std::max(20 * diff, tol * mx));
  }

  // llama.cpp's quantizer accepts the file; wgrt on its Q8_0 output vs llama.cpp on that file's F32 rewrite, with
  // f32 activations (the prompt's GEMMs off the int8 route, which every device with packed int8 dot products takes
  // by default): the weights decode exactly.
  const std::string q8 = (scratch() / (c.cfg.name + ".q8_0.gguf")).string(), dq = (scratch() / (c.cfg.name + ".dq.gguf")).string();
  llamacpp_quantize(f32, q8, "Q8_0");
  llamacpp_quantize(q8, dq, "F32");
  const LlamaCppRun qref = llamacpp_run(dq, prompt, 1);
  ::setenv("WGRT_GEMM_MMQ_GGML", "0", 1);
  const LlamaCppRun qgot = wgrt_run(q8, prompt, c.context);
  ::unsetenv("WGRT_GEMM_MMQ_GGML");
  const float qdiff = max_abs_diff(qgot.logits, qref.logits);
  std::printf("[ %s ] Q8_0 by llama.cpp: max diff %.2e vs its F32 rewrite\n", c.cfg.name.c_str(), qdiff);
  EXPECT_LT(qdiff, tol * max_abs(qref.logits));

  // The default route (the int8 prefill GEMM: x rounded to 8 bits per 32-k block) against llama.cpp's own run of
  // the Q8_0 file, whose CPU matmuls round x to 8 bits per 32-k block too (its Q8_0 activation blocks): measured
  // from the F32 rewrite's logits, wgrt's error is at most twice llama.cpp's own (these std-0.2 models move by
  // 2-10% of the largest logit under 8-bit activations; seen: wgrt 0.7-1.2x llama.cpp's error).
  const LlamaCppRun q8ref = llamacpp_run(q8, prompt, 1);
  const LlamaCppRun q8got = wgrt_run(q8, prompt, c.context);
  const float ours = max_abs_diff(q8got.logits, qref.logits), theirs = max_abs_diff(q8ref.logits, qref.logits);
  std::printf("[ %s ] Q8_0, default route: max diff %.2e vs the F32 rewrite, llama.cpp's quantized path %.2e; "
              "%.2e between them\n", c.cfg.name.c_str(), ours, theirs, max_abs_diff(q8got.logits, q8ref.logits));
  EXPECT_LT(ours, 2 * theirs + tol * max_abs(qref.logits)) << "Q8_0 default route: error against llama.cpp's own";
}

INSTANTIATE_TEST_SUITE_P(Families, FamiliesLlamaCpp, ::testing::ValuesIn(cases()), [](const auto& info) {
  std::string n = info.param.cfg.name;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
});

}  // namespace
}  // namespace wgrt::test
