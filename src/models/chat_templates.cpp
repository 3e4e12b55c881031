// Built-in chat templates (Jinja2 sources written for wgrt, following each format's published layout) and
// resolve_chat_template (include/wgrt/llm.h).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt {

namespace {

struct Builtin {
  const char* name;
  const char* source;
  std::vector<std::string> stop;
};

// ChatML (Qwen, many fine-tunes): <|im_start|>role\ncontent<|im_end|>\n ... <|im_start|>assistant\n
const char* const kChatml =
    "{%- for message in messages -%}\n"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}\n";

// Llama 3 / 3.x: BOS, then <|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|> per message.
const char* const kLlama3 =
    "{{- bos_token -}}\n"
    "{%- for message in messages -%}\n"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + "
    "'<|eot_id|>' -}}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}{%- endif -%}\n";

// Llama 2 chat: <s>[INST] <<SYS>>\nsystem\n<</SYS>>\n\nuser [/INST] reply </s><s>[INST] ...
const char* const kLlama2 =
    "{%- set ns = namespace(sys='') -%}\n"
    "{%- for message in messages -%}\n"
    "{%- if message['role'] == 'system' -%}\n"
    "{%- set ns.sys = '<<SYS>>\\n' + message['content'] | trim + '\\n<</SYS>>\\n\\n' -%}\n"
    "{%- elif message['role'] == 'user' -%}\n"
    "{{- bos_token + '[INST] ' + ns.sys + message['content'] | trim + ' [/INST]' -}}\n"
    "{%- set ns.sys = '' -%}\n"
    "{%- else -%}\n"
    "{{- ' ' + message['content'] | trim + ' ' + eos_token -}}\n"
    "{%- endif -%}\n"
    "{%- endfor -%}\n";

// Gemma: BOS, <start_of_turn>user|model\ncontent<end_of_turn>\n; a system message is shown as a user turn.
const char* const kGemma =
    "{{- bos_token -}}\n"
    "{%- for message in messages -%}\n"
    "{%- if message['role'] == 'assistant' -%}{%- set role = 'model' -%}{%- else -%}{%- set role = 'user' -%}"
    "{%- endif -%}\n"
    "{{- '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' -}}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}{{- '<start_of_turn>model\\n' -}}{%- endif -%}\n";

// Phi-3: <|role|>\ncontent<|end|>\n ... <|assistant|>\n
const char* const kPhi3 =
    "{%- for message in messages -%}\n"
    "{{- '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' -}}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}{{- '<|assistant|>\\n' -}}{%- endif -%}\n";

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> b = {
      {"chatml", kChatml, {"<|im_end|>"}},     {"llama2", kLlama2, {"[INST]"}},
      {"llama3", kLlama3, {"<|eot_id|>"}},     {"gemma", kGemma, {"<end_of_turn>"}},
      {"phi3", kPhi3, {"<|end|>"}},
  };
  return b;
}

ChatTemplateSource builtin(const std::string& name, const std::string& origin) {
  for (const Builtin& b : builtins())
    if (name == b.name) return {b.name, origin, b.source, b.stop};
  throw InvalidArgument(fmt::format("no built-in chat template '{}'", name));
}

constexpr size_t kMaxTemplateBytes = 1 << 20;

}  // namespace

std::vector<std::string> builtin_chat_templates() {
  std::vector<std::string> names;
  for (const Builtin& b : builtins()) names.emplace_back(b.name);
  return names;
}

ChatTemplateSource resolve_chat_template(const Llm& llm, const std::string& file_or_name) {
  if (file_or_name.empty()) {
    const std::string& t = llm.special_tokens().chat_template;
    if (!t.empty()) return {"model", "the model's tokenizer.chat_template", t, {}};
    return builtin("chatml", "built-in 'chatml' (the model has no chat template; choose another with --chat-template)");
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(file_or_name, ec)) {
    std::ifstream f(file_or_name, std::ios::binary);
    std::string s;
    if (f) {
      std::ostringstream o;
      o << f.rdbuf();
      s = o.str();
    }
    if (!f) throw FormatError(fmt::format("cannot read the chat template file '{}'", file_or_name));
    if (s.size() > kMaxTemplateBytes)
      throw FormatError(fmt::format("chat template file '{}' is {} bytes, more than the {} allowed", file_or_name,
                                    s.size(), kMaxTemplateBytes));
    return {file_or_name, fmt::format("the file '{}'", file_or_name), s, {}};
  }
  for (const Builtin& b : builtins())
    if (file_or_name == b.name) return builtin(b.name, fmt::format("built-in '{}'", b.name));
  std::string names;
  for (const Builtin& b : builtins()) names += (names.empty() ? "" : ", ") + std::string(b.name);
  throw InvalidArgument(fmt::format("chat template '{}' is neither a file nor a built-in name ({})", file_or_name, names));
}

}  // namespace wgrt
