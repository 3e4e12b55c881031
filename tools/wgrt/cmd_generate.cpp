// `wgrt generate`: load a model, prefill the prompt, decode with a KV cache, stream the text.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

#include <unistd.h>

#include "cli_common.h"
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
      ->check(tokenizer_file_check());
  add_vocab_check(cmd, o);
  cmd->add_option("-c,--ctx", o.context, "KV-cache length in tokens (default: the model's context, at most 4096)")
      ->check(count_check());
  cmd->add_option("--prefill-chunk", o.max_prefill, "Max tokens per prefill step (default: 2048 on GPUs, 512 on CPU adapters; at most ctx)")
      ->check(count_check());
  cmd->add_option("--adapter", o.adapter, "Adapter: vulkan | opengl | discrete | integrated | cpu | name substring");
  cmd->add_flag("--f32", o.force_f32, "Dequantize 4-bit weights to f32");
  cmd->add_option("--cache-type", o.cache_type,
                  "KV-cache element type: f16 (default, half the memory; f32 where the head dim is not a multiple of 4) or f32")
      ->check(CLI::IsMember({"f16", "f32"}));
  cmd->add_flag("--check-weights", o.check_weights, "Scan every weight for NaN/Inf before loading (slower load)");
}

namespace {

struct PromptArgs {
  std::string text, file;
  bool verbose_prompt = false, ids = false;
};

// The prompt: -p TEXT, -p - (stdin), -f FILE, or stdin when it is not a terminal; "" when none (BOS alone).
std::string read_prompt(const PromptArgs& a, const CLI::Option* popt) {
  if (popt->count() > 0 && !a.file.empty()) throw InvalidArgument("give the prompt with -p or -f, not both");
  if (!a.file.empty()) return read_text_file(a.file, true);
  if (popt->count() > 0) {
    if (a.text == "-") return read_stdin_text();
    if (a.text.empty()) throw InvalidArgument("the prompt is empty: omit -p to start from BOS alone");
    return a.text;
  }
  return stdin_is_terminal() ? std::string() : read_stdin_text();
}

std::string join_ids(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t t : ids) s += (s.empty() ? "" : " ") + std::to_string(t);
  return s;
}

}  // namespace

void add_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Generate text from a prompt with a Llama-family model on the GPU");
  auto o = std::make_shared<LlmOptions>();
  auto g = std::make_shared<GenerateOptions>();
  auto pa = std::make_shared<PromptArgs>();
  auto trace = std::make_shared<std::string>();
  add_model_options(cmd, *o);
  auto* popt = cmd->add_option("-p,--prompt", pa->text,
                               "Prompt text; - reads it from stdin (default: stdin when it is not a terminal, else BOS alone)");
  cmd->add_option("-f,--file", pa->file, "Read the prompt from this file (one trailing newline dropped)")
      ->check(CLI::ExistingFile);
  cmd->add_option("-n,--n-predict", g->max_tokens, "Number of tokens to generate (-1: until EOS or the context end)")
      ->check(limit_check())->capture_default_str();
  auto* seed_opt = add_sampling_options(cmd, *g);
  cmd->add_flag("--verbose-prompt", pa->verbose_prompt, "Print the prompt's tokens (id and text) on stderr");
  cmd->add_flag("--ids", pa->ids, "Print the prompt and generated token ids on stderr");
  cmd->add_flag("--profile", o->profile, "Print a per-kernel GPU time table (timestamp queries)");
  cmd->add_option("--trace", *trace, "With --profile: write a Chrome trace JSON file here");
  cmd->callback([o, g, pa, trace, popt, seed_opt] {
    const std::string prompt = read_prompt(*pa, popt);
    if (!trace->empty() && !o->profile) throw InvalidArgument("--trace needs --profile");
    if (!trace->empty() && !std::ofstream(*trace)) throw FormatError(fmt::format("cannot write the trace file {}", *trace));
    GenerateOptions gen = *g;
    const bool random = pick_seed(gen, seed_opt);
    auto llm = Llm::load(*o);
    std::vector<int32_t> ids = llm->tokenize(prompt, gen.add_bos);
    if (ids.empty()) throw InvalidArgument("the prompt is empty and no BOS token was added: nothing to start from");
    if (pa->verbose_prompt) {
      fmt::print(stderr, "prompt: {} tokens\n", ids.size());
      int32_t prev = -1;
      for (int32_t t : ids) {
        fmt::print(stderr, "{:>8} -> '{}'\n", t, llm->token_piece(prev, t));
        prev = t;
      }
    }
    // The prompt is echoed once generation has started (so a rejected prompt prints nothing on stdout), then the
    // continuation as it streams.
    bool echoed = false;
    auto echo = [&] {
      if (!echoed) write_out(prompt);
      echoed = true;
    };
    // Long prompts (several prefill chunks) show their progress on a terminal.
    if (isatty(fileno(stderr))) {
      gen.on_prefill = [](int done, int total) {
        fmt::print(stderr, "\rprefill: {}/{} tokens{}", done, total, done == total ? "\n" : "");
        std::fflush(stderr);
      };
    }
    GenerateStats st = llm->generate_tokens(ids, gen, [&](std::string_view s) {
      echo();
      write_out(s);
    }, /*reuse_cache=*/false);
    echo();
    write_out("\n");
    finish_out();
    if (st.stop_reason == "context")
      fmt::print(stderr, "wgrt: stopped at the context limit of {} tokens\n", llm->context());
    if (pa->ids) fmt::print(stderr, "prompt ids: {}\ngenerated ids: {}\n", join_ids(ids), join_ids(st.tokens));
    fmt::print(stderr, "model: {}\n", llm->description());
    fmt::print(stderr, "load: {:.3f} s | prompt: {} tokens, {:.1f} tok/s | generated: {} tokens, {:.1f} tok/s | stop: {} | GPU memory: {:.1f} MiB{}\n",
               llm->load_seconds(), st.prompt_tokens, st.prefill_tok_s(), st.generated_tokens, st.decode_tok_s(),
               st.stop_reason, double(llm->gpu_bytes()) / 1048576.0,
               random ? fmt::format(" | seed: {} (random; repeat with --seed {})", gen.seed, gen.seed) : "");
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
