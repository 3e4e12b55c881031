// `wgrt tokenize`: the token ids of a text under a GGUF file's vocabulary, like llama.cpp's llama-tokenize.
// Works on vocab-only GGUF files (no tensors): only the tokenizer.ggml.* metadata is read.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "commands.h"
#include "formats/gguf.h"
#include "models/tokenizer_loader.h"
#include "wgrt/error.h"

namespace wgrt::cli {

namespace {
struct TokenizeOptions {
  std::string model, prompt, file;
  bool ids = false, special = false, no_bos = false, time = false;
};
}  // namespace

void add_tokenize(CLI::App& app) {
  auto* cmd = app.add_subcommand("tokenize", "Print the token ids of a text under a GGUF file's vocabulary "
                                              "(works on vocab-only files)");
  auto o = std::make_shared<TokenizeOptions>();
  cmd->add_option("-m,--model", o->model, "GGUF file whose tokenizer.ggml.* vocabulary to use")->required();
  auto* p = cmd->add_option("-p,--prompt", o->prompt, "Text to tokenize");
  auto* f = cmd->add_option("-f,--file", o->file, "File whose bytes to tokenize");
  p->excludes(f);
  cmd->add_flag("--ids", o->ids, "Print only the ids, as [1, 2, 3]");
  cmd->add_flag("--special", o->special,
                "Turn control-token texts in the input (e.g. <|im_start|>) into their ids; without it they are "
                "tokenized as plain text (user-defined tokens are always matched)");
  cmd->add_flag("--no-bos", o->no_bos, "Do not add the BOS token even if the vocabulary asks for it");
  cmd->add_flag("--time", o->time, "Print the load and tokenize wall times to stderr");
  cmd->callback([o, p, f] {
    if (p->count() == 0 && f->count() == 0) throw InvalidArgument("tokenize needs the text: -p TEXT or -f FILE");
    std::string text = o->prompt;
    if (f->count() > 0) {
      std::ifstream in(o->file, std::ios::binary);
      if (!in) throw InvalidArgument(fmt::format("cannot open {} for reading", o->file));
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const GgufFile g = GgufFile::open(o->model);
    const auto tok = models::tokenizer_from_gguf(g, o->special);
    const auto t1 = Clock::now();
    const bool bos = tok->add_bos_by_default() && !o->no_bos && tok->bos_id() >= 0;
    const auto ids = tok->encode(text, bos);
    const auto t2 = Clock::now();
    if (o->time) {
      auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
      fmt::print(stderr, "load {:.1f} ms, tokenize {:.1f} ms ({} bytes -> {} tokens)\n", ms(t1 - t0), ms(t2 - t1),
                 text.size(), ids.size());
    }
    if (o->ids) {
      fmt::print("[{}]\n", fmt::join(ids, ", "));
      return;
    }
    for (int32_t id : ids) fmt::print("{:6d} -> '{}'\n", id, tok->token_bytes(id));
  });
}

}  // namespace wgrt::cli
