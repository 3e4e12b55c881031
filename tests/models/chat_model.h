// A tiny synthesized qwen2 GGUF with a ChatML chat template and its special tokens embedded (src/models/synth.h),
// for the chat tests: non-degenerate weights (std 0.2) so greedy replies vary with the prompt.
#pragma once
#include <filesystem>
#include <string>
#include <unistd.h>

#include "models/synth.h"

namespace wgrt::test {

// The embedded template: ChatML, with a default system message when the conversation has none.
inline const char* kChatTestTemplate =
    "{%- if messages[0]['role'] != 'system' -%}"
    "{{- '<|im_start|>system\\nYou are a test model.<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}";

// What kChatTestTemplate renders for these turns (user, assistant, user, ...) with the generation prompt: the
// golden the tests compare against, written out by hand.
inline std::string chatml_by_hand(const std::vector<std::string>& turns, const std::string& system = "") {
  std::string s = "<|im_start|>system\n" + (system.empty() ? std::string("You are a test model.") : system) + "<|im_end|>\n";
  for (size_t i = 0; i < turns.size(); ++i)
    s += std::string("<|im_start|>") + (i % 2 ? "assistant" : "user") + "\n" + turns[i] + "<|im_end|>\n";
  return s + "<|im_start|>assistant\n";
}

inline models::SynthConfig chat_synth_config(int context = 256) {
  models::SynthConfig c{.name = "tiny-chat", .arch = "qwen2", .dim = 64, .ffn = 128, .layers = 2, .heads = 4,
                        .kv_heads = 2, .head_dim = 16, .vocab = 320, .context = context,
                        .rope_theta = 1000000.0f, .rms_eps = 1e-6f, .qkv_bias = true, .init_std = 0.2f};
  c.chat_template = kChatTestTemplate;
  c.control_tokens = {"<|im_start|>", "<|im_end|>"};
  c.eot_token = "<|im_end|>";
  return c;
}

// Writes the model (F32 weights) once per process and returns its path.
inline std::string chat_synth_path(int context = 256) {
  auto p = std::filesystem::temp_directory_path() /
           ("wgrt_chat_synth_" + std::to_string(getpid()) + "_" + std::to_string(context) + ".gguf");
  if (!std::filesystem::exists(p)) models::synth_gguf(chat_synth_config(context), GgmlType::F32, 11).write(p.string());
  return p.string();
}

}  // namespace wgrt::test
