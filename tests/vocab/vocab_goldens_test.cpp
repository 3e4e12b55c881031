// Differential check against llama.cpp itself beyond its .inp/.out vectors: tests/golden/tokenizer_llamacpp.json
// holds llama.cpp's ids (node-llama-cpp 3.21.1, made by the committed tests/golden/make_tokenizer_goldens.mjs)
// for our own strings (combining marks, deepseek character classes, Unicode white space, special-token texts and
// strip rules, Hangul and accents) under each vocab-only GGUF file, with parse_special off and on. Exact match;
// per-vocab counts are printed. $WGRT_TOKENIZER_GOLDENS names another goldens file of the same form.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "formats/gguf.h"
#include "models/tokenizer_loader.h"
#include "support/paths.h"
#include "vocab_files.h"

namespace wgrt {
namespace {

const nlohmann::json& goldens() {
  static const nlohmann::json j = [] {
    // WGRT_TOKENIZER_GOLDENS: another file of the same form (e.g. a bigger random set made the same way).
    const char* e = std::getenv("WGRT_TOKENIZER_GOLDENS");
    std::ifstream in(e ? std::string(e) : test::source_path("tests/golden/tokenizer_llamacpp.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

class VocabGoldens : public ::testing::TestWithParam<std::string> {};

TEST_P(VocabGoldens, MatchLlamaCpp) {
  const std::string gguf = test::vocab_path(GetParam());
  const auto& g = goldens();
  const auto& strings = g.at("strings");
  const auto& v = g.at("vocabs").at(GetParam());
  const GgufFile f = GgufFile::open(gguf);
  for (const bool special : {false, true}) {
    const auto tok = models::tokenizer_from_gguf(f, special);
    const auto& want_all = v.at(special ? "special" : "plain");
    int pass = 0;
    for (std::size_t i = 0; i < strings.size(); ++i) {
      const std::string text = strings[i].get<std::string>();
      const auto want = want_all[i].get<std::vector<int32_t>>();
      const auto got = tok->encode(text, false);
      if (got == want) {
        ++pass;
      } else {
        ADD_FAILURE() << GetParam() << (special ? " (parse_special)" : "") << ": '" << text << "'\n  want "
                      << fmt::format("{}", fmt::join(want, " ")) << "\n  got  " << fmt::format("{}", fmt::join(got, " "));
      }
    }
    std::printf("vocab %-15s %-14s %3d/%3zu llama.cpp goldens match\n", GetParam().c_str(),
                special ? "parse_special" : "plain", pass, strings.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Llama, VocabGoldens,
                         ::testing::Values("llama-spm", "llama-bpe", "qwen2", "qwen35", "gpt-2", "phi-3", "gemma-4",
                                           "deepseek-llm", "deepseek-coder", "falcon", "mpt", "starcoder", "refact",
                                           "command-r", "bert-bge", "aquila", "baichuan", "gpt-neox"),
                         test::VocabParamName());

}  // namespace
}  // namespace wgrt
