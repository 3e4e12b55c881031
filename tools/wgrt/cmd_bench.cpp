// `wgrt bench`: prefill and decode throughput, in the manner of llama-bench (pp N / tg N, mean ± sd over runs).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <random>

#include "commands.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt::cli {


namespace {
struct BenchOpts {
  int prompt = 128, gen = 128, reps = 3;
  std::string tg_mode = "logits";
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
                  "the argmax back before the next step), pipelined (the GPU-resident greedy loop of generate)")
      ->check(CLI::IsMember({"logits", "greedy", "pipelined"}));
  cmd->callback([o, b] {
    if (b->prompt < 1 || b->gen < 1 || b->reps < 1) throw InvalidArgument("-p, -n and -r must be at least 1");
    if (o->context == 0) o->context = b->prompt + b->gen + 1;
    auto llm = Llm::load(*o);
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
      if (b->tg_mode == "logits") {
        for (int i = 0; i < b->gen; ++i) llm->forward({prompt[size_t(i) % prompt.size()]}, b->prompt + i);
      } else if (b->tg_mode == "greedy") {
        int32_t t = prompt.back();
        for (int i = 0; i < b->gen; ++i) {
          llm->decode_submit(t, b->prompt + i);
          t = std::max(llm->decode_take(), 0);
        }
      } else {  // pipelined: step i+1 is submitted (its token fed on the GPU) before step i's argmax is read
        llm->decode_submit(prompt.back(), b->prompt);
        for (int i = 1; i < b->gen; ++i) {
          llm->decode_submit(-1, b->prompt + i);
          llm->decode_take();
        }
        llm->decode_take();
      }
      tg.push_back(b->gen / std::chrono::duration<double>(Clock::now() - t1).count());
    }
    fmt::print("model: {}\n", llm->description());
    fmt::print("| test | t/s |\n|---|---|\n| pp{} | {} |\n| tg{} | {} |\n", b->prompt, mean_sd(pp), b->gen, mean_sd(tg));
  });
}

}  // namespace wgrt::cli
