// Helpers shared by the wgrt CLI subcommands (cli_*.cpp): checked writes to stdout, prompt text from files and
// stdin, sampling options, the default annotations of --help, and llama.cpp habits (cli_compat.cpp).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt {
struct GenerateOptions;
struct LlmOptions;
}

namespace wgrt::cli {

// Writes to stdout and flushes; throws wgrt::Error ("cannot write to standard output: <reason>") when the write
// or the flush fails (a full disk, `> /dev/full`, a closed pipe with SIGPIPE ignored).
void write_out(std::string_view s);
// Flushes and checks stdout's error flag once more (call before exiting 0).
void finish_out();

// The whole file (FormatError naming it when it cannot be read). strip_newline: drop one trailing "\n" (or
// "\r\n"), as a prompt file written by an editor ends with one.
std::string read_text_file(const std::string& path, bool strip_newline);
// All of stdin, with one trailing newline dropped.
std::string read_stdin_text();
bool stdin_is_terminal();

// A seed from std::random_device, in [0, 2^53) so that it reads and retypes cleanly.
uint64_t random_seed();

// Registers the sampling options (--temp, --top-k, --top-p, --min-p, --repeat-penalty, --seed, --stop) on cmd;
// returns the --seed option (to tell whether it was given).
CLI::Option* add_sampling_options(CLI::App* cmd, GenerateOptions& g);
// --seed not given and sampling on: a random seed (returns true: print it so the run can be repeated).
bool pick_seed(GenerateOptions& g, const CLI::Option* seed_opt);
// -n as a token limit: a whole number in [-1, 1e8], -1 meaning no limit.
CLI::Validator limit_check();

// For every option of every subcommand of `app` whose help shows no default: shows the bound variable's
// initial value, or appends "(default: off)" to a flag's description and "(default: none)" to an option's
// with an empty initial value (required options, and descriptions that state their default, excepted), so
// --help lists every option with its default.
void document_defaults(CLI::App& app);

// The command line with llama.cpp flags that mean nothing (or something else) here taken out, each with a
// one-line note on stderr ("wgrt: note: -ngl: wgrt always runs every layer on the GPU (ignored)"); flags that
// ask for another command (-cnv, -i) are an InvalidArgument naming it. Only the words after a model command
// (generate, chat, bench, graph) are looked at. See kCompatFooter for the list.
class CompatArgs {
 public:
  CompatArgs(int argc, char** argv);
  int argc() const { return int(ptrs_.size()) - 1; }
  char** argv() { return ptrs_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> ptrs_;
};
extern const char* const kCompatFooter;

// -t FILE: an existing file; a number that is not a file gets the hint that llama.cpp's -t (threads) means
// nothing here.
CLI::Validator tokenizer_file_check();
// Adds --replace-vocab to a model command and a check run once its options are parsed: -t with a GGUF model
// (detected by its magic) is an InvalidArgument unless --replace-vocab is given, and the footer listing the
// llama.cpp flags (kCompatFooter).
void add_vocab_check(CLI::App* cmd, const LlmOptions& o);

}  // namespace wgrt::cli
