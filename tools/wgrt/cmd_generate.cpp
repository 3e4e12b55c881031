// `wgrt generate`: load a model, prefill the prompt, decode with a KV cache, stream the text.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

#include <unistd.h>

#include "commands.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt::cli {

// Validators with readable messages (CLI11's NonNegativeNumber prints the whole double range).
CLI::Validator count_check() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        try {
          size_t used = 0;
          long long n = std::stoll(v, &used);
          if (used == v.size() && n >= 0 && n <= 100000000) return {};
        } catch (const std::exception&) {
        }
        return "'" + v + "' is not a whole number in [0, 100000000]";
      },
      "COUNT");
}

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        // Digits only (std::stoull alone would skip leading blanks and wrap a minus sign).
        if (!v.empty() && v.size() <= 20 && v.find_first_not_of("0123456789") == std::string::npos) {
          try {
            std::stoull(v);
            return {};
          } catch (const std::exception&) {  // above 2^64 - 1
          }
        }
        return "'" + v + "' is not a whole number in [0, 18446744073709551615]";
      },
      "SEED");
}

CLI::Validator real_check(double lo, double hi, bool open_low, const std::string& what) {
  return CLI::Validator(
      [=](std::string& v) -> std::string {
        try {
          size_t used = 0;
          double x = std::stod(v, &used);
          if (used == v.size() && std::isfinite(x) && x <= hi && (open_low ? x > lo : x >= lo)) return {};
        } catch (const std::exception&) {
        }
        return "'" + v + "' is not " + what;
      },
      "NUMBER");
}

void add_model_options(CLI::App* cmd, LlmOptions& o) {
  cmd->add_option("-m,--model", o.model, "Model file: GGUF (llama, qwen2, qwen3) or llama2.c checkpoint (.bin)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-t,--tokenizer", o.tokenizer, "llama2.c tokenizer file (for .bin models; GGUF embeds its vocabulary)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--ctx", o.context, "KV-cache length in tokens (default: the model's context, at most 4096)")
      ->check(count_check());
  cmd->add_option("--prefill-chunk", o.max_prefill, "Max tokens per prefill step (default: min(ctx, 512))")
      ->check(count_check());
  cmd->add_option("--adapter", o.adapter, "Adapter: vulkan | opengl | discrete | integrated | cpu | name substring");
  cmd->add_flag("--f32", o.force_f32, "Dequantize 4-bit weights to f32");
  cmd->add_flag("--check-weights", o.check_weights, "Scan every weight for NaN/Inf before loading (slower load)");
}

void add_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Generate text from a prompt with a Llama-family model on the GPU");
  auto o = std::make_shared<LlmOptions>();
  auto g = std::make_shared<GenerateOptions>();
  auto prompt = std::make_shared<std::string>();
  auto trace = std::make_shared<std::string>();
  add_model_options(cmd, *o);
  auto* popt = cmd->add_option("-p,--prompt", *prompt, "Prompt text (omit it to start from BOS alone)");
  cmd->add_option("-n,--n-predict", g->max_tokens, "Number of tokens to generate")->check(count_check())->capture_default_str();
  cmd->add_option("--temp", g->temperature, "Sampling temperature (0 = greedy)")
      ->check(real_check(0, 100, false, "a number in [0, 100]"))->capture_default_str();
  cmd->add_option("--top-k", g->top_k, "Top-k sampling (0 = off)")->check(count_check())->capture_default_str();
  cmd->add_option("--top-p", g->top_p, "Top-p (nucleus) sampling, in (0, 1] (1 = off)")
      ->check(real_check(0, 1, true, "a number in (0, 1]"))->capture_default_str();
  cmd->add_option("--min-p", g->min_p, "Min-p sampling, in [0, 1] (0 = off)")
      ->check(real_check(0, 1, false, "a number in [0, 1]"))->capture_default_str();
  cmd->add_option("--repeat-penalty", g->repetition_penalty, "Repetition penalty, > 0 (1 = off)")
      ->check(real_check(0, 100, true, "a number in (0, 100]"))->capture_default_str();
  cmd->add_option("--seed", g->seed, "Random seed for sampling (>= 0)")->check(seed_check());
  cmd->add_flag("--profile", o->profile, "Print a per-kernel GPU time table (timestamp queries)");
  cmd->add_option("--trace", *trace, "With --profile: write a Chrome trace JSON file here");
  cmd->callback([o, g, prompt, trace, popt] {
    if (popt->count() > 0 && prompt->empty())
      throw InvalidArgument("the prompt is empty: omit -p to start from BOS alone");
    if (!trace->empty() && !o->profile) throw InvalidArgument("--trace needs --profile");
    if (!trace->empty() && !std::ofstream(*trace)) throw FormatError(fmt::format("cannot write the trace file {}", *trace));
    auto llm = Llm::load(*o);
    // The prompt is echoed once generation has started (so a rejected prompt prints nothing on stdout), then the
    // continuation as it streams.
    bool echoed = false;
    auto echo = [&] {
      if (!echoed) std::fwrite(prompt->data(), 1, prompt->size(), stdout);
      echoed = true;
    };
    // Long prompts (several prefill chunks) show their progress on a terminal.
    GenerateOptions gen = *g;
    if (isatty(fileno(stderr))) {
      gen.on_prefill = [](int done, int total) {
        fmt::print(stderr, "\rprefill: {}/{} tokens{}", done, total, done == total ? "\n" : "");
        std::fflush(stderr);
      };
    }
    GenerateStats st = llm->generate(*prompt, gen, [&](std::string_view s) {
      echo();
      std::fwrite(s.data(), 1, s.size(), stdout);
      std::fflush(stdout);
    });
    echo();
    std::printf("\n");
    std::fflush(stdout);
    if (st.stop_reason == "context")
      fmt::print(stderr, "wgrt: stopped at the context limit of {} tokens\n", llm->context());
    fmt::print(stderr, "model: {}\n", llm->description());
    fmt::print(stderr, "load: {:.3f} s | prompt: {} tokens, {:.1f} tok/s | generated: {} tokens, {:.1f} tok/s | stop: {} | GPU memory: {:.1f} MiB\n",
               llm->load_seconds(), st.prompt_tokens, st.prefill_tok_s(), st.generated_tokens, st.decode_tok_s(),
               st.stop_reason, double(llm->gpu_bytes()) / 1048576.0);
    if (!llm->profile_report().empty()) {  // --profile or WGRT_TIMESTAMP_QUERY=1
      fmt::print(stderr, "{}", llm->profile_report());
      if (!trace->empty()) {
        std::ofstream f(*trace);
        f << llm->profile_trace();
        f.close();
        if (!f) throw FormatError(fmt::format("could not write the trace file {}", *trace));
        fmt::print(stderr, "trace written to {}\n", *trace);
      }
    }
  });
}

}  // namespace wgrt::cli
