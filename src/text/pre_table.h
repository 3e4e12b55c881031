// The pre-tokenizer of each GGUF tokenizer.ggml.pre value, as llama.cpp's llama-vocab.cpp defines it: a list of
// regexes applied in turn (PreTokenizer, pretokenizer.h) and the flags that go with the name.
//
// Supported: every name llama.cpp 80fb11ac maps to a regex list (about 90 names, e.g. "default", "llama-bpe",
// "qwen2", "qwen35", "gpt-2", "deepseek-llm", "deepseek-coder", "falcon", "mpt", "starcoder", "refact",
// "command-r", "gemma4", "tekken", "gpt-4o", "chameleon", "bloom"), plus "gpt2" (older wgrt files).
// Refused by name (pre_known_unsupported): "kimi-k2", "afmoe", "tiny_aya", "cohere2moe", "superbpe", whose
// splitting llama.cpp does in hand-written code (or with empty regex matches) rather than with a regex list.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::text {

struct PreSpec {
  std::string kind;                  // llama.cpp's LLAMA_VOCAB_PRE_TYPE_* name, e.g. "LLAMA3" (for messages)
  std::vector<std::string> regexes;  // Perl syntax, applied in order
  bool byte_encode;    // words are mapped through GPT-2's byte -> unicode table (false: raw UTF-8, "<0xHH>" fallback)
  bool ignore_merges;  // a word that is itself a token is emitted without merging (Llama-3 and a few others)
  bool escape_spaces;  // spaces become U+2581 before splitting (Gemma-4 style BPE)
  bool add_bos;        // llama.cpp's add_bos default for this name when tokenizer.ggml.add_bos_token is absent
};

// Pure functions over a static table; any thread.
// The spec of `name`, or nullopt when llama.cpp does not know the name or it is one of the refused ones.
std::optional<PreSpec> find_pre(std::string_view name);
// Every supported name, in table order (tests, fuzzers).
std::vector<std::string_view> pre_names();
// Whether `name` is a llama.cpp name that wgrt refuses (see above).
bool pre_known_unsupported(std::string_view name);

}  // namespace wgrt::text
