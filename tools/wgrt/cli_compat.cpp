// llama.cpp habits on the wgrt command line (cli_common.h, CompatArgs).
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cli_common.h"
#include "formats/model_file_kind.h"
#include "util/mapped_file.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt::cli {

namespace {

enum class Takes { None, Value, MaybeValue };

struct Habit {
  std::vector<const char*> names;
  Takes takes;
  const char* note;  // nullptr: an error (the flag asks for another command)
  const char* error = nullptr;
};

const std::vector<Habit>& habits() {
  static const std::vector<Habit> h = {
      {{"-ngl", "--n-gpu-layers", "--gpu-layers"}, Takes::Value, "wgrt always runs every layer on the GPU"},
      {{"-fa", "--flash-attn"}, Takes::MaybeValue, "wgrt always uses its fused attention kernels"},
      {{"--threads", "-tb", "--threads-batch"}, Takes::Value, "wgrt runs on the GPU and has no CPU thread count"},
      {{"-b", "--batch-size", "-ub", "--ubatch-size"}, Takes::Value,
       "wgrt's prompt batch is --prefill-chunk"},
      {{"--mlock", "--no-mmap", "--mmap"}, Takes::None, "wgrt memory-maps the model file and uploads it to the GPU"},
      {{"-cnv", "--conversation", "-i", "--interactive", "-if", "--interactive-first"}, Takes::None, nullptr,
       "conversation mode is its own command here: wgrt chat -m MODEL"},
  };
  return h;
}

bool is_number(const char* s) {
  if (!*s) return false;
  for (const char* c = s; *c; ++c)
    if (*c < '0' || *c > '9') return false;
  return true;
}

bool is_model_command(const std::string& s) {
  return s == "generate" || s == "chat" || s == "bench" || s == "graph";
}

}  // namespace

const char* const kCompatFooter =
    "llama.cpp flags: -c is --ctx; -ngl, -fa, --threads, -tb, -b, -ub, --mlock, --no-mmap are accepted and "
    "ignored with a note; -t NUMBER (llama.cpp's thread count) is ignored with a note (-t is the llama2.c "
    "tokenizer file here); -cnv and -i point to wgrt chat.";

CompatArgs::CompatArgs(int argc, char** argv) {
  bool model_cmd = false, chat = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (i == 1) model_cmd = is_model_command(a), chat = a == "chat";
    if (i < 2 || !model_cmd) {
      args_.push_back(a);
      continue;
    }
    // -t N: llama.cpp's threads, unless a file of that name exists.
    if ((a == "-t" || a == "--tokenizer") && i + 1 < argc && is_number(argv[i + 1]) &&
        !std::filesystem::exists(argv[i + 1])) {
      std::fprintf(stderr, "wgrt: note: -t %s: -t is the llama2.c tokenizer file here, not llama.cpp's thread count; "
                   "wgrt runs on the GPU (ignored)\n", argv[i + 1]);
      ++i;
      continue;
    }
    const Habit* hit = nullptr;
    std::string name = a, value;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) name = a.substr(0, eq);
    for (const Habit& h : habits())
      for (const char* n : h.names)
        if (name == n) hit = &h;
    if (!hit) {
      args_.push_back(a);
      continue;
    }
    if (hit->error && chat) {
      std::fprintf(stderr, "wgrt: note: %s: wgrt chat is always a conversation (ignored)\n", name.c_str());
      continue;
    }
    if (hit->error) throw InvalidArgument(fmt::format("{}: {}", name, hit->error));
    if (name == a && hit->takes == Takes::Value && i + 1 < argc) ++i;
    if (name == a && hit->takes == Takes::MaybeValue && i + 1 < argc &&
        (!std::strcmp(argv[i + 1], "on") || !std::strcmp(argv[i + 1], "off") || !std::strcmp(argv[i + 1], "auto")))
      ++i;
    std::fprintf(stderr, "wgrt: note: %s: %s (ignored)\n", name.c_str(), hit->note);
  }
  for (std::string& s : args_) ptrs_.push_back(s.data());
  ptrs_.push_back(nullptr);  // argv[argc]
}

CLI::Validator tokenizer_file_check() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_regular_file(v, ec)) return {};
        if (std::filesystem::exists(v, ec)) {  // a FIFO, device or folder: say which (a FIFO would block a read)
          try {
            require_regular_file(v, "tokenizer file");
          } catch (const Error& e) {
            return e.what();
          }
        }
        if (is_number(v.c_str()))
          return "'" + v + "' is not a file: -t is the llama2.c tokenizer file here, not llama.cpp's thread count "
                           "(wgrt runs on the GPU)";
        return "tokenizer file '" + v + "' does not exist";
      },
      "FILE");
}

void add_vocab_check(CLI::App* cmd, const LlmOptions& o) {
  auto replace = std::make_shared<bool>(false);
  cmd->add_flag("--replace-vocab", *replace,
                "With -t and a GGUF model: use the llama2.c tokenizer file instead of the embedded vocabulary");
  cmd->footer(kCompatFooter);
  cmd->parse_complete_callback([&o, replace] {
    if (o.tokenizer.empty() || o.model.empty() || *replace) return;
    if (model_file_kind(o.model) == ModelFileKind::Gguf)
      throw InvalidArgument(fmt::format("-t {}: '{}' is a GGUF model with its own vocabulary; -t is for llama2.c "
                                        "checkpoints (add --replace-vocab to use the file anyway)",
                                        o.tokenizer, o.model));
  });
}

}  // namespace wgrt::cli
