// llama.cpp's load-time corrections of token types by token text (llama-vocab.cpp, "auto-detect special tokens
// by text"), which change how special texts in an input are split and how tokens decode. Applied by the GGUF
// loader (models/tokenizer_loader.cpp) before the tokenizer is built:
// - end-of-generation texts ("<|eot_id|>", "<|im_end|>", "<|end|>", "<|endoftext|>", "</s>", "<eos>",
//   "<end_of_turn>", "<|eom_id|>", "<EOT>", "<|end_of_text|>", ... the full list is in the .cpp) become Control;
// - for each fill-in-the-middle role (prefix, suffix, middle, pad, repo, file separator) the first token (lowest
//   id) whose text is one of llama.cpp's names for it becomes Control (llama.cpp takes the first it meets in
//   hash order, and only when the file names no id for that role: files where that differs are not known);
// - "<|channel|>", "<|message|>", "<|start|>", "<|constrain|>" become UserDefined (gpt-oss);
// - with "<|return|>" and "<|call|>", or "<|call|>"/"<|calls|>" and "<|flush|>", among those texts, "<|end|>"
//   becomes UserDefined; with "<|tool_response>" among them, "</s>" becomes Normal (Gemma-4).
// `types` has one TokenType value per token (filled with Normal when empty). Unknown tokens stay Unknown.
// Touches only its arguments; any thread.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wgrt::text {

void apply_special_overrides(const std::vector<std::string>& tokens, std::vector<int32_t>& types);

}  // namespace wgrt::text
