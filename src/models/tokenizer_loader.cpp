#include "models/tokenizer_loader.h"

#include <fmt/format.h>

#include "formats/gguf.h"
#include "formats/llama2c_tokenizer_file.h"
#include "text/llama2c_tokenizer.h"
#include "util/printable.h"
#include "wgrt/error.h"

namespace wgrt::models {

std::unique_ptr<text::Tokenizer> tokenizer_from_gguf(const GgufFile& f) {
  text::TokenizerSpec s;
  s.model = f.get_string("tokenizer.ggml.model");
  s.tokens = f.get_array_strings("tokenizer.ggml.tokens");
  if (auto v = f.opt_array_f32("tokenizer.ggml.scores")) s.scores = std::move(*v);
  if (auto v = f.opt_array_i32("tokenizer.ggml.token_type")) s.token_types = std::move(*v);
  if (auto v = f.opt_array_strings("tokenizer.ggml.merges")) s.merges = std::move(*v);
  if (s.model == "gpt2" && s.merges.empty())
    throw FormatError(fmt::format("{}: tokenizer.ggml.merges is missing or empty, but a gpt2 (byte-level BPE) "
                                  "tokenizer needs its merge list",
                                  printable(f.path(), 300)));
  if (auto v = f.opt_u32("tokenizer.ggml.bos_token_id")) s.bos_id = int32_t(*v);
  if (auto v = f.opt_u32("tokenizer.ggml.eos_token_id")) s.eos_id = int32_t(*v);
  if (auto v = f.opt_u32("tokenizer.ggml.unknown_token_id")) s.unk_id = int32_t(*v);
  s.add_bos = f.opt_bool("tokenizer.ggml.add_bos_token").value_or(s.model == "llama");
  if (auto v = f.opt_bool("tokenizer.ggml.add_space_prefix")) s.add_space_prefix = *v;
  if (auto v = f.opt_string("tokenizer.ggml.pre")) s.pre = *v;
  return text::make_tokenizer(std::move(s));
}

std::unique_ptr<text::Tokenizer> load_tokenizer(const WeightSource& w, const std::string& path) {
  const int vocab = w.config().vocab_size;
  std::unique_ptr<text::Tokenizer> tok;
  if (!path.empty()) {
    Llama2cTokenizerFile f;
    try {
      f = Llama2cTokenizerFile::read(path);
    } catch (const FormatError& e) {
      throw FormatError(fmt::format("tokenizer {}: {}", printable(path, 300), e.what()));
    }
    if (int(f.pieces.size()) != vocab)
      throw FormatError(fmt::format("wrong tokenizer for the model: {} has {} tokens, the model's vocabulary has {}",
                                    printable(path, 300), f.pieces.size(), vocab));
    tok = std::make_unique<text::Llama2cTokenizer>(std::move(f.pieces), std::move(f.scores));
  } else if (const GgufFile* g = w.gguf()) {
    if (!g->has("tokenizer.ggml.model"))
      throw FormatError(fmt::format("{} has no embedded tokenizer (tokenizer.ggml.*)", printable(g->path(), 300)));
    tok = tokenizer_from_gguf(*g);
  } else {
    throw InvalidArgument("a llama2.c checkpoint needs its tokenizer file (-t tokenizer.bin)");
  }
  if (tok->vocab_size() != vocab)
    throw FormatError(fmt::format("wrong tokenizer for the model: {} tokens, the model's vocabulary has {}",
                                  tok->vocab_size(), vocab));
  return tok;
}

}  // namespace wgrt::models
