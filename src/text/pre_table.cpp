// GGUF tokenizer.ggml.pre names -> pre-tokenizer regex lists and flags, as llama.cpp's llama-vocab.cpp maps them
// (its llm_tokenizer_bpe regex lists, which come from each model's tokenizer.json).
#include "text/pre_table.h"

#include <array>

namespace wgrt::text {
namespace {

struct Kind {
  std::initializer_list<std::string_view> kinds;
  bool byte_encode;
  std::initializer_list<const char*> regexes;
};

// One row per distinct regex list; `kinds` are llama.cpp's LLAMA_VOCAB_PRE_TYPE_* names sharing it.
const std::initializer_list<Kind> kKinds = {
    {{"LLAMA3", "DBRX", "SMAUG", "CHATGLM4"}, true, {
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"JAIS2"}, true, {
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1})re",
    }},
    {{"DEEPSEEK_LLM"}, true, {
        "[\r\n]",
        R"re(\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+)re",
        R"re(\s?[!-/:-~！-／：-～‘-‟　-。]+)re",
        R"re(\s+$)re",
        R"re([一-龥ࠀ-一가-퟿]+)re",
        R"re(\p{N}+)re",
    }},
    {{"DEEPSEEK3_LLM", "HUNYUAN_DENSE", "JOYAI_LLM"}, true, {
        R"re(\p{N}{1,3})re",
        R"re([一-龥぀-ゟ゠-ヿ]+)re",
        "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
    }},
    {{"YOUTU"}, true, {
        R"re([가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+)re",
        R"re([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"DEEPSEEK_CODER"}, true, {
        "[\r\n]",
        R"re(\s?\p{L}+)re",
        R"re(\s?\p{P}+)re",
        R"re([一-龥ࠀ-一가-퟿]+)re",
        R"re(\p{N})re",
    }},
    {{"FALCON"}, true, {
        R"re([\p{P}\$\+<=>\^~\|`]+)re",
        R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
        R"re([0-9][0-9][0-9])re",
    }},
    {{"STARCODER", "REFACT", "COMMAND_R", "SMOLLM", "CODESHELL", "EXAONE", "MINERVA", "MELLUM2"}, true, {
        R"re(\p{N})re",
        R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
    }},
    {{"GPT2", "MPT", "OLMO", "JAIS", "TRILLION", "GRANITE_DOCLING"}, true, {
        R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
    }},
    {{"STABLELM2", "QWEN2", "HUNYUAN", "SOLAR_OPEN", "GROK_2"}, true, {
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"QWEN35"}, true, {
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"PORO", "BLOOM", "GPT3_FINNISH"}, true, {
        R"re( ?[^(\s|.,!?…。，、।۔،)]+)re",
    }},
    {{"VIKING"}, true, {
        R"re( ?[^(\s|.,!?…。，、।۔،)]+)re",
        R"re(\p{N})re",
    }},
    {{"TEKKEN"}, true, {
        R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"CHAMELEON"}, true, {
        R"re(<sentinel:[0-9]+>)re",
        R"re((IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z)re",
        R"re(([\t\n]|    |  ))re",
        R"re(\p{N})re",
        R"re([\p{P}!-/:-@\[-`{-~])re",
        R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
    }},
    {{"GPT4O", "MINIMAX_M2"}, true, {
        R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"GRANITE_EMB_MULTI"}, true, {
        R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))*((?=[\p{L}\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))+((?=[\p{L}\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"BAILINGMOE"}, true, {
        R"re('(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)re",
    }},
    {{"SEED_CODER"}, true, {
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"LAGUNA"}, true, {
        R"re([^\n]+|[\n]+)re",
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"EXAONE_MOE"}, true, {
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+)re",
    }},
    {{"GEMMA4", "SARVAM_MOE"}, false, {
        R"re([^\n]+|[\n]+)re",
    }},
    {{"MINICPM5"}, true, {
        R"re(\p{N}{1,3})re",
        R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
    }},
    {{"WHITESPACE"}, false, {
        R"re(\S+)re",
    }},
    {{"DEFAULT"}, true, {
        R"re([\p{P}\$\+<=>\^~\|]+)re",
        R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
        R"re(\p{N}+)re",
        R"re([0-9][0-9][0-9])re",
    }},
};

struct Name {
  std::string_view name, kind;
  bool ignore_merges = false, escape_spaces = false, add_bos = false;
};

// tokenizer.ggml.pre value -> kind and flags. "gpt2" is not a llama.cpp name; older wgrt files wrote it.
const std::initializer_list<Name> kNames = {
    {"default", "DEFAULT"}, {"", "DEFAULT"}, {"minicpm5", "MINICPM5", true},
    {"llama3", "LLAMA3", true, false, true}, {"llama-v3", "LLAMA3", true, false, true},
    {"llama-bpe", "LLAMA3", true, false, true}, {"falcon3", "LLAMA3", true, false, true},
    {"falcon-h1", "LLAMA3", true, false, true}, {"pixtral", "LLAMA3", true, false, true},
    {"midm-2.0", "LLAMA3", true, false, true}, {"lfm2", "LLAMA3", true, false, true},
    {"jina-v5-nano", "LLAMA3", true, false, true},
    {"deepseek-llm", "DEEPSEEK_LLM"}, {"deepseek-coder", "DEEPSEEK_CODER"}, {"deepseek-v3", "DEEPSEEK3_LLM"},
    {"youtu", "YOUTU", true}, {"falcon", "FALCON"}, {"mpt", "MPT"}, {"starcoder", "STARCODER"},
    {"gpt-2", "GPT2"}, {"gpt2", "GPT2"}, {"phi-2", "GPT2"}, {"jina-es", "GPT2"}, {"jina-de", "GPT2"},
    {"gigachat", "GPT2"}, {"jina-v2-es", "GPT2"}, {"jina-v2-de", "GPT2"}, {"a.x-4.0", "GPT2"}, {"mellum", "GPT2"},
    {"modern-bert", "GPT2"}, {"jina-v1-en", "GPT2"}, {"jina-v2-code", "GPT2"}, {"roberta-bpe", "GPT2"},
    {"exaone4", "GPT2"}, {"jais-2", "JAIS2"},
    {"gemma4", "GEMMA4", false, true}, {"granite-embed-multi-311m", "GEMMA4", false, true},
    {"sarvam-moe", "SARVAM_MOE", false, true}, {"whitespace", "WHITESPACE"},
    {"refact", "REFACT"}, {"command-r", "COMMAND_R"},
    {"qwen2", "QWEN2"}, {"deepseek-r1-qwen", "QWEN2"}, {"kormo", "QWEN2"}, {"f2llmv2", "QWEN2"}, {"megrez", "QWEN2"},
    {"qwen35", "QWEN35"}, {"stablelm2", "STABLELM2"}, {"olmo", "OLMO"}, {"dbrx", "DBRX"}, {"smaug-bpe", "SMAUG"},
    {"poro-chat", "PORO"}, {"glm4", "CHATGLM4"}, {"chatglm-bpe", "CHATGLM4"}, {"viking", "VIKING"}, {"jais", "JAIS"},
    {"tekken", "TEKKEN", true, false, true}, {"smollm", "SMOLLM"}, {"codeshell", "CODESHELL"}, {"bloom", "BLOOM"},
    {"gpt3-finnish", "GPT3_FINNISH"}, {"exaone", "EXAONE"}, {"exaone-moe", "EXAONE_MOE"},
    {"chameleon", "CHAMELEON", false, false, true}, {"minerva-7b", "MINERVA"},
    {"gpt-4o", "GPT4O"}, {"llama4", "GPT4O"}, {"kanana2", "GPT4O"}, {"talkie", "GPT4O"},
    {"granite-embed-multi-97m", "GRANITE_EMB_MULTI", true}, {"trillion", "TRILLION"},
    {"granite-docling", "GRANITE_DOCLING"}, {"bailingmoe", "BAILINGMOE"}, {"bailingmoe2", "BAILINGMOE"},
    {"llada-moe", "BAILINGMOE"}, {"seed-coder", "SEED_CODER"}, {"hunyuan", "HUNYUAN"},
    {"hunyuan-dense", "HUNYUAN_DENSE"}, {"joyai-llm", "JOYAI_LLM"}, {"grok-2", "GROK_2"}, {"laguna", "LAGUNA"},
    {"minimax-m2", "MINIMAX_M2"}, {"solar-open", "SOLAR_OPEN"}, {"mellum2", "MELLUM2"},
};

// Names llama.cpp knows whose splitting is hand-written code there, not a regex list (refused by name).
constexpr std::array<std::string_view, 5> kUnsupported = {"kimi-k2", "afmoe", "tiny_aya", "cohere2moe", "superbpe"};

}  // namespace

std::optional<PreSpec> find_pre(std::string_view name) {
  for (const Name& n : kNames) {
    if (n.name != name) continue;
    for (const Kind& k : kKinds) {
      for (std::string_view kn : k.kinds) {
        if (kn != n.kind) continue;
        PreSpec s{std::string(n.kind), {}, k.byte_encode, n.ignore_merges, n.escape_spaces, n.add_bos};
        for (const char* r : k.regexes) s.regexes.emplace_back(r);
        return s;
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> pre_names() {
  std::vector<std::string_view> out;
  for (const Name& n : kNames) out.push_back(n.name);
  return out;
}

bool pre_known_unsupported(std::string_view name) {
  for (auto u : kUnsupported) if (u == name) return true;
  return false;
}

}  // namespace wgrt::text
