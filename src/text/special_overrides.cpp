#include "text/special_overrides.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <unordered_map>

#include "text/tokenizer.h"

namespace wgrt::text {
namespace {

using Names = std::initializer_list<std::string_view>;

const Names kEog = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
                    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
                    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
                    "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>", "[e~["};
const std::initializer_list<Names> kFim = {
    {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "begin\xEF\xBD\x9C>", "<PRE>",
     "\xE2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>"},
    {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81hole\xEF\xBD\x9C>", "<SUF>",
     "\xE2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>"},
    {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "end\xEF\xBD\x9C>", "<MID>",
     "\xE2\x96\x81<MID>", "<|code_middle|>", "<|middle|>"},
    {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"},
    {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"},
    {"<|file_sep|>"},
};

bool in(std::string_view s, Names names) { return std::find(names.begin(), names.end(), s) != names.end(); }

}  // namespace

void apply_special_overrides(const std::vector<std::string>& tokens, std::vector<int32_t>& types) {
  if (types.empty()) types.assign(tokens.size(), static_cast<int32_t>(TokenType::Normal));
  const std::size_t n = std::min(tokens.size(), types.size());
  auto make_control = [&](std::size_t i) {
    if (types[i] != static_cast<int32_t>(TokenType::Unknown)) types[i] = static_cast<int32_t>(TokenType::Control);
  };
  std::unordered_map<std::string_view, std::size_t> eog;  // EOG text -> first id
  for (std::size_t i = 0; i < n; ++i) {
    if (in(tokens[i], kEog)) {
      make_control(i);
      eog.emplace(tokens[i], i);
    }
  }
  for (const Names& role : kFim) {
    for (std::size_t i = 0; i < n; ++i) {
      if (in(tokens[i], role)) {
        make_control(i);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (in(tokens[i], {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"})) {
      types[i] = static_cast<int32_t>(TokenType::UserDefined);
    }
  }
  auto has = [&](std::string_view t) { return eog.count(t) > 0; };
  if (has("<|end|>") && ((has("<|return|>") && has("<|call|>")) || ((has("<|call|>") || has("<|calls|>")) && has("<|flush|>")))) {
    types[eog["<|end|>"]] = static_cast<int32_t>(TokenType::UserDefined);
  }
  if (has("<|tool_response>") && has("</s>")) types[eog["</s>"]] = static_cast<int32_t>(TokenType::Normal);
}

}  // namespace wgrt::text
