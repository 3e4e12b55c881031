#include "models/tokenizer_loader.h"

#include <fmt/format.h>

#include "formats/gguf.h"
#include "formats/llama2c_tokenizer_file.h"
#include "text/llama2c_tokenizer.h"
#include "util/printable.h"
#include "text/pre_table.h"
#include "text/special_overrides.h"
#include "wgrt/error.h"

namespace wgrt::models {

text::TokenizerSpec tokenizer_spec_from_gguf(const GgufFile& f, bool parse_special) {
  if (!f.has("tokenizer.ggml.model"))
    throw FormatError(fmt::format("{} has no embedded tokenizer (tokenizer.ggml.*)", printable(f.path(), 300)));
  text::TokenizerSpec s;
  s.model = f.get_string("tokenizer.ggml.model");
  if (s.model == "llama" || s.model == "gpt2" || s.model == "gemma4" || s.model == "bert") {
    s.tokens = f.get_array_strings("tokenizer.ggml.tokens");
  }  // other models: make_tokenizer refuses them by name, before any large array is read
  if (auto v = f.opt_array_f32("tokenizer.ggml.scores")) s.scores = std::move(*v);
  if (auto v = f.opt_array_i32("tokenizer.ggml.token_type")) s.token_types = std::move(*v);
  if (auto v = f.opt_array_strings("tokenizer.ggml.merges")) s.merges = std::move(*v);
  if (auto v = f.opt_u32("tokenizer.ggml.bos_token_id")) s.bos_id = int32_t(*v);
  else if (auto c = f.opt_u32("tokenizer.ggml.cls_token_id"); c && s.model == "bert") s.bos_id = int32_t(*c);
  if (auto v = f.opt_u32("tokenizer.ggml.eos_token_id")) s.eos_id = int32_t(*v);
  if (auto v = f.opt_u32("tokenizer.ggml.unknown_token_id")) s.unk_id = int32_t(*v);
  if (auto v = f.opt_u32("tokenizer.ggml.seperator_token_id")) s.sep_id = int32_t(*v);
  if (auto v = f.opt_string("tokenizer.ggml.pre")) s.pre = *v;
  // add_bos when the key is absent: llama.cpp's defaults (SPM and WPM: yes; BPE: per pre name).
  bool add_bos_default = s.model == "llama" || s.model == "bert";
  if (s.model == "gpt2") {
    if (auto p = text::find_pre(s.pre)) add_bos_default = p->add_bos;
  }
  s.add_bos = f.opt_bool("tokenizer.ggml.add_bos_token").value_or(add_bos_default);
  if (s.model == "gemma4") s.add_bos = true;  // llama.cpp overrides it to true for Gemma-4
  if (auto v = f.opt_bool("tokenizer.ggml.add_space_prefix")) s.add_space_prefix = *v;
  if (auto v = f.opt_bool("tokenizer.ggml.normalizer.lowercase")) s.lowercase = *v;
  s.strip_accents = f.opt_bool("tokenizer.ggml.normalizer.strip_accents").value_or(s.lowercase);
  if (auto v = f.opt_string("general.name")) s.general_name = *v;
  if (auto v = f.opt_string("general.architecture")) s.general_arch = *v;
  s.parse_special = parse_special;
  text::apply_special_overrides(s.tokens, s.token_types);  // llama.cpp's corrections by token text
  return s;
}

std::unique_ptr<text::Tokenizer> tokenizer_from_gguf(const GgufFile& f, bool parse_special) {
  return text::make_tokenizer(tokenizer_spec_from_gguf(f, parse_special));
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
