// `wgrt bench`: prefill and decode throughput, in the manner of llama-bench (pp N / tg N, mean ± sd over runs).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <random>

#include "commands.h"
#include "models/decode_sampling.h"
#include "text/sampler.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt::cli {


namespace {
struct BenchOpts {
  int prompt = 128, gen = 128, reps = 3;
  std::string tg_mode = "logits";
  GenerateOptions sampling;  // --tg-mode sample / sample-cpu
};
std::string mean_sd(const std::vector<double>& v) {
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= double(v.size());
  for (double x : v) s += (x - m) * (x - m);
  s = v.size() > 1 ? std::sqrt(s / double(v.size() - 1)) : 0;
  return fmt::format("{:.2f} ± {:.2f}", m, s);
}
}  // namespace

void add_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Measure prefill (pp) and decode (tg) tokens/s, like llama-bench");
  auto o = std::make_shared<LlmOptions>();
  auto b = std::make_shared<BenchOpts>();
  add_model_options(cmd, *o);
  cmd->add_option("-p,--n-prompt", b->prompt, "Prompt tokens for the prefill test")->check(count_check());
  cmd->add_option("-n,--n-gen", b->gen, "Tokens for the decode test")->check(count_check());
  cmd->add_option("-r,--repetitions", b->reps, "Repetitions of each test")->check(count_check());
  cmd->add_option("--tg-mode", b->tg_mode,
                  "Decode test: logits (read every token's logits back, as llama-bench's decode does), greedy (read "
                  "the argmax back before the next step), pipelined (the GPU-resident greedy loop of generate), "
                  "sample (the GPU draw with --temp/--top-k/--top-p/--min-p/--repeat-penalty/--seed, in the "
                  "GPU-resident loop when the tuning pipelines decode), sample-cpu (every token's logits read back "
                  "and drawn by the CPU sampler, as generate does without GPU sampling)")
      ->check(CLI::IsMember({"logits", "greedy", "pipelined", "sample", "sample-cpu"}));
  GenerateOptions& s = b->sampling;  // sample / sample-cpu (defaults: what run20_sampling.sh measures)
  s.temperature = 0.8f;
  s.top_p = 0.95f;
  s.seed = 1;
  cmd->add_option("--temp", s.temperature, "Sampling temperature, > 0 for sample / sample-cpu")
      ->check(real_check(0, 100, false, "a number in [0, 100]"))->capture_default_str();
  cmd->add_option("--top-k", s.top_k, "Top-k (0 = off)")->check(count_check())->capture_default_str();
  cmd->add_option("--top-p", s.top_p, "Top-p, in (0, 1] (1 = off)")
      ->check(real_check(0, 1, true, "a number in (0, 1]"))->capture_default_str();
  cmd->add_option("--min-p", s.min_p, "Min-p, in [0, 1] (0 = off)")
      ->check(real_check(0, 1, false, "a number in [0, 1]"))->capture_default_str();
  cmd->add_option("--repeat-penalty", s.repetition_penalty, "Repetition penalty, > 0 (1 = off)")
      ->check(real_check(0, 100, true, "a number in (0, 100]"))->capture_default_str();
  cmd->add_option("--seed", s.seed, "Random seed")->check(seed_check())->capture_default_str();
  cmd->callback([o, b] {
    if (b->prompt < 1 || b->gen < 1 || b->reps < 1) throw InvalidArgument("-p, -n and -r must be at least 1");
    if (o->context == 0) o->context = b->prompt + b->gen + 1;
    const bool sampling = b->tg_mode == "sample" || b->tg_mode == "sample-cpu";
    if (sampling && !(b->sampling.temperature > 0))
      throw InvalidArgument("--tg-mode " + b->tg_mode + " needs --temp > 0");
    auto llm = Llm::load(*o);
    if (b->tg_mode == "sample" && !llm->set_sampling(&b->sampling))
      throw Unsupported("this model cannot sample on the GPU: use --tg-mode sample-cpu");
    std::mt19937 rng(42);
    std::uniform_int_distribution<int32_t> pick(3, llm->vocab_size() - 1);
    std::vector<int32_t> prompt(size_t(b->prompt));
    for (auto& t : prompt) t = pick(rng);
    using Clock = std::chrono::steady_clock;
    // Warm-up: compiles every pipeline route (prefill and decode).
    llm->forward(prompt, 0);
    llm->forward({prompt[0]}, b->prompt);
    std::vector<double> pp, tg;
    for (int r = 0; r < b->reps; ++r) {
      auto t0 = Clock::now();
      llm->forward(prompt, 0);  // reads the logits back: the GPU work is finished
      pp.push_back(b->prompt / std::chrono::duration<double>(Clock::now() - t0).count());
      auto t1 = Clock::now();
      if (b->tg_mode == "sample-cpu") {
        text::Sampler sampler(models::sampler_config(b->sampling));
        std::vector<int32_t> seq = prompt;
        for (int i = 0; i < b->gen; ++i) {
          std::vector<float> logits = llm->forward({seq.back()}, b->prompt + i);
          seq.push_back(sampler.sample(logits, seq));
        }
      } else if (b->tg_mode == "sample" && !llm->decode_pipelined()) {
        llm->decode_submit(prompt.back(), b->prompt);
        for (int i = 1; i < b->gen; ++i) {
          llm->decode_take();
          llm->decode_submit(-1, b->prompt + i);
        }
        llm->decode_take();
      } else if (b->tg_mode == "logits") {
        for (int i = 0; i < b->gen; ++i) llm->forward({prompt[size_t(i) % prompt.size()]}, b->prompt + i);
      } else if (b->tg_mode == "greedy") {
        int32_t t = prompt.back();
        for (int i = 0; i < b->gen; ++i) {
          llm->decode_submit(t, b->prompt + i);
          t = std::max(llm->decode_take(), 0);
        }
      } else {  // pipelined / sample: step i+1 is submitted (its token fed on the GPU) before step i's argmax is read
        llm->decode_submit(prompt.back(), b->prompt);
        for (int i = 1; i < b->gen; ++i) {
          llm->decode_submit(-1, b->prompt + i);
          llm->decode_take();
        }
        llm->decode_take();
      }
      tg.push_back(b->gen / std::chrono::duration<double>(Clock::now() - t1).count());
    }
    if (b->tg_mode == "sample") llm->set_sampling(nullptr);
    fmt::print("model: {}\n", llm->description());
    fmt::print("| test | t/s |\n|---|---|\n| pp{} | {} |\n| tg{} | {} |\n", b->prompt, mean_sd(pp), b->gen, mean_sd(tg));
  });
}

}  // namespace wgrt::cli
