#include "cli_common.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include <unistd.h>

#include "commands.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt::cli {

namespace {
[[noreturn]] void write_failed() {
  throw Error(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
}
void drop_newline(std::string& s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (!s.empty() && s.back() == '\r') s.pop_back();
}
}  // namespace

void write_out(std::string_view s) {
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) write_failed();
  if (std::fflush(stdout) != 0) write_failed();
}

void finish_out() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) write_failed();
}

std::string read_text_file(const std::string& path, bool strip_newline) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream o;
  if (f) o << f.rdbuf();
  if (!f) throw FormatError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::string s = o.str();
  if (strip_newline) drop_newline(s);
  return s;
}

std::string read_stdin_text() {
  std::string s;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) s.append(buf, n);
  if (std::ferror(stdin)) throw FormatError(fmt::format("cannot read standard input: {}", std::strerror(errno)));
  drop_newline(s);
  return s;
}

bool stdin_is_terminal() { return isatty(fileno(stdin)) != 0; }

uint64_t random_seed() {
  std::random_device rd;
  return ((uint64_t(rd()) << 32) | rd()) & ((uint64_t(1) << 53) - 1);
}

CLI::Validator limit_check() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        try {
          size_t used = 0;
          long long n = std::stoll(v, &used);
          if (used == v.size() && n >= -1 && n <= 100000000) return {};
        } catch (const std::exception&) {
        }
        return "'" + v + "' is not a whole number in [0, 100000000] or -1 (no limit)";
      },
      "COUNT");
}

CLI::Option* add_sampling_options(CLI::App* cmd, GenerateOptions& g) {
  cmd->add_option("--temp", g.temperature, "Sampling temperature (0 = greedy)")
      ->check(real_check(0, 100, false, "a number in [0, 100]"))->capture_default_str();
  cmd->add_option("--top-k", g.top_k, "Top-k sampling (0 = off)")->check(count_check())->capture_default_str();
  cmd->add_option("--top-p", g.top_p, "Top-p (nucleus) sampling, in (0, 1] (1 = off)")
      ->check(real_check(0, 1, true, "a number in (0, 1]"))->capture_default_str();
  cmd->add_option("--min-p", g.min_p, "Min-p sampling, in [0, 1] (0 = off)")
      ->check(real_check(0, 1, false, "a number in [0, 1]"))->capture_default_str();
  cmd->add_option("--repeat-penalty", g.repetition_penalty, "Repetition penalty, > 0 (1 = off)")
      ->check(real_check(0, 100, true, "a number in (0, 100]"))->capture_default_str();
  cmd->add_option("--stop", g.stop, "Stop at this text (repeatable; matched across token boundaries, not printed)")
      ->allow_extra_args(false);
  return cmd->add_option("--seed", g.seed, "Random seed for sampling, >= 0 (default: a random one, printed on stderr)")
      ->check(seed_check());
}

bool pick_seed(GenerateOptions& g, const CLI::Option* seed_opt) {
  if (seed_opt->count() > 0 || g.temperature == 0) return false;
  g.seed = random_seed();
  return true;
}

void document_defaults(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    for (CLI::Option* opt : sub->get_options()) {
      if (opt == sub->get_help_ptr() || !opt->get_default_str().empty() || opt->get_required()) continue;
      const std::string d = opt->get_description();
      if (d.find("default") != std::string::npos) continue;
      opt->capture_default_str();  // the bound variable's initial value
      if (opt->get_default_str() == "[]") opt->default_str("");  // an empty list
      if (opt->get_expected_max() == 0 || opt->get_default_str().empty())
        opt->description(d + (opt->get_expected_max() == 0 ? " (default: off)" : " (default: none)"));
    }
    document_defaults(*sub);
  }
}

}  // namespace wgrt::cli
