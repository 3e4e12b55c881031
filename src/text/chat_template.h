// Chat templates: renders a GGUF's tokenizer.chat_template (a Jinja2 template) into the prompt text, the way
// Hugging Face transformers' apply_chat_template does (jinja2 ImmutableSandboxedEnvironment with
// trim_blocks + lstrip_blocks and the loopcontrols extension; tojson = json.dumps(ensure_ascii=False);
// globals raise_exception and strftime_now). The engine is our own interpreter of the Jinja2 subset that real
// chat templates use (src/text/jinja/); python3-jinja2 is the test oracle (tests/golden/make_goldens_chat_templates.py).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace wgrt::text {

// ordered_json keeps object keys in insertion (file) order, as Python dicts do, so a template that prints a
// whole object (tojson of a tool definition) prints its keys in the order HF would. A plain nlohmann::json
// converts implicitly (its keys then arrive sorted).
struct ChatTemplateInputs {
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();  // [{role, content, ...}] as HF passes them
  nlohmann::ordered_json tools;  // null (the template sees `tools` as none, like HF), or an array of tool definitions
  bool add_generation_prompt = false;
  std::string bos_token, eos_token;  // token texts (UTF-8), e.g. "<s>"
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // more variables (e.g. enable_thinking)
};

class ChatTemplate {
 public:
  // Parses the Jinja2 source (UTF-8). Throws wgrt::FormatError (one line: "chat template line L:C: ...") on a
  // syntax error, an unknown filter or test name (jinja2 rejects those at compile time too), or past the
  // nesting bound (200 levels) or the source size bound (1 MiB).
  explicit ChatTemplate(std::string_view source);
  ~ChatTemplate();
  ChatTemplate(ChatTemplate&&) noexcept;
  ChatTemplate& operator=(ChatTemplate&&) noexcept;

  // Renders like HF apply_chat_template. Throws wgrt::InvalidArgument with the template's own message for
  // raise_exception(msg), and wgrt::FormatError ("chat template line L: ...") for runtime errors: undefined
  // value used, type error, unsafe (mutating) method call, or past the bounds (macro recursion depth 200,
  // 10^7 loop iterations, 16 MiB of output). strftime_now(fmt) formats the local time, or the fixed time in
  // $WGRT_TEMPLATE_NOW ("YYYY-MM-DD HH:MM:SS", for reproducible tests). Thread-safe for concurrent apply()
  // calls on one object (the parsed template is read-only).
  std::string apply(const ChatTemplateInputs& in) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wgrt::text
