// Sampling on the GPU inside the decode loop (Llm::set_sampling, generate_loop.cpp) on stories260K, forced on
// with WGRT_GPU_SAMPLING=1 (lavapipe's policy keeps the CPU sampler). Oracles: text::Sampler's kept set on the
// logits the model computes for each prefix (every drawn token must be in it), greedy decoding (top_k 1 must
// give the greedy tokens), and the loop without the pipeline (the penalty window fed on the GPU must equal the
// window the host writes), run to run determinism for a fixed seed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "model_test_util.h"
#include "models/decode_sampling.h"
#include "support/run_cli.h"
#include "text/sampler.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

// Sets an environment variable for the scope (tests run one per process under ctest).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::unique_ptr<Llm> load_stories(bool pipelined) {
  ScopedEnv gs("WGRT_GPU_SAMPLING", "1");
  ScopedEnv dp("WGRT_DECODE_PIPELINE", pipelined ? "1" : "0");
  auto llm = Llm::load(stories_bin_options());
  EXPECT_TRUE(llm->gpu_sampling());
  EXPECT_EQ(llm->decode_pipelined(), pipelined);
  return llm;
}

GenerateOptions sampling(float temp, int top_k, float top_p, float min_p, float penalty, uint64_t seed) {
  GenerateOptions g;
  g.max_tokens = 48;
  g.temperature = temp;
  g.top_k = top_k;
  g.top_p = top_p;
  g.min_p = min_p;
  g.repetition_penalty = penalty;
  g.seed = seed;
  return g;
}

std::vector<int32_t> run(Llm& llm, const GenerateOptions& g) {
  return llm.generate("Once upon a time", g, [](std::string_view) {}).tokens;
}

}  // namespace

TEST(GpuSamplingLoop, DrawsLieInTheCpuSamplersKeptSet) {
  auto llm = load_stories(true);
  const GenerateOptions g = sampling(0.8f, 20, 0.9f, 0.02f, 1.3f, 1);
  const std::vector<int32_t> toks = run(*llm, g);
  ASSERT_GT(toks.size(), 10u);
  std::vector<int32_t> seq = llm->tokenize("Once upon a time", true);
  text::Sampler cpu(models::sampler_config(g));
  size_t not_argmax = 0;
  for (size_t i = 0; i < toks.size(); ++i) {
    EvalResult r = llm->eval(seq, {.reuse_cache = true, .want_logits = true});
    bool kept = false;
    for (const auto& t : cpu.distribution(r.logits, seq)) kept = kept || (t.id == toks[i] && t.p > 0);
    EXPECT_TRUE(kept) << "step " << i << ": token " << toks[i] << " is outside the CPU sampler's kept set";
    not_argmax += toks[i] != r.argmax;
    seq.push_back(toks[i]);
  }
  EXPECT_GT(not_argmax, 0u) << "the draws never left the argmax: sampling did not happen";
}

TEST(GpuSamplingLoop, SameSeedSameTokensPipelinedOrNot) {
  auto piped = load_stories(true);
  const GenerateOptions g = sampling(0.8f, 0, 0.95f, 0.0f, 1.2f, 1);
  const std::vector<int32_t> a = run(*piped, g), b = run(*piped, g);
  EXPECT_EQ(a, b);
  GenerateOptions other = g;
  other.seed = 2;
  EXPECT_NE(run(*piped, other), a);
  piped.reset();
  auto stepped = load_stories(false);
  EXPECT_EQ(run(*stepped, g), a) << "the window fed on the GPU differs from the host's";
}

TEST(GpuSamplingLoop, TopKOneIsGreedy) {
  auto llm = load_stories(true);
  GenerateOptions greedy;
  greedy.max_tokens = 48;
  const std::vector<int32_t> want = run(*llm, greedy);
  EXPECT_EQ(run(*llm, sampling(0.8f, 1, 1.0f, 0.0f, 1.0f, 1)), want);
  EXPECT_EQ(run(*llm, sampling(1e-6f, 0, 1.0f, 0.0f, 1.0f, 9)), want);  // tiny temperature
}

TEST(GpuSamplingLoop, CliGenerateIsDeterministic) {
  const std::string args = "generate -m " + stories("stories260K.bin") + " -t " + stories("tok512.bin") +
                           " -n 40 -p \"Once upon a time\" --temp 0.8 --seed 1";
  const std::string env = "WGRT_GPU_SAMPLING=1 timeout 120";
  RunResult a = run_cli(args, "/dev/null", env), b = run_cli(args, "/dev/null", env);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  RunResult greedy = run_cli(args + " --top-k 1", "/dev/null", env);
  RunResult plain = run_cli("generate -m " + stories("stories260K.bin") + " -t " + stories("tok512.bin") +
                            " -n 40 -p \"Once upon a time\" --temp 0", "/dev/null", env);
  ASSERT_EQ(greedy.exit_code, 0) << greedy.err;
  EXPECT_EQ(greedy.out, plain.out);
  EXPECT_NE(a.out, plain.out);
}
