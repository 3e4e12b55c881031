// `wgrt template`: renders a chat template (a GGUF's tokenizer.chat_template or a Jinja2 file) over a
// conversation read from JSON and prints the prompt text exactly, with no newline added. For debugging
// templates; the chat-template conformance tests drive it too.
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "commands.h"
#include "formats/gguf.h"
#include "text/chat_template.h"
#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

struct TemplateArgs {
  std::string model, template_file, messages, tools, vars, bos, eos;
  bool bos_set = false, eos_set = false;
  bool add_generation_prompt = false;
};

std::string read_file(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InvalidArgument(std::string("cannot read ") + what + " '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

nlohmann::ordered_json read_json(const std::string& path, const char* what) {  // keys in file order, as HF
  const std::string text = read_file(path, what);
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::ordered_json::parse_error& e) {
    std::string m = e.what();
    const size_t colon = m.find("]: ");
    throw InvalidArgument(std::string(what) + " '" + path + "' is not valid JSON (" +
                          (colon == std::string::npos ? m : m.substr(colon + 3)) + ")");
  }
}

// The token text for tokenizer.ggml.<which>_token_id, or "" when the model names none.
std::string token_text(const GgufFile& g, const char* which) {
  const auto id = g.opt_u32(std::string("tokenizer.ggml.") + which + "_token_id");
  if (!id) return "";
  const auto tokens = g.opt_array_strings("tokenizer.ggml.tokens");
  if (!tokens || *id >= tokens->size())
    throw FormatError(g.path() + ": tokenizer.ggml." + which + "_token_id " + std::to_string(*id) +
                      " is not a token of the vocabulary");
  return (*tokens)[*id];
}

void run(const TemplateArgs& a) {
  std::string source;
  text::ChatTemplateInputs in;
  if (!a.model.empty()) {
    const GgufFile g = GgufFile::open(a.model);
    const auto tmpl = g.opt_string("tokenizer.chat_template");
    if (!tmpl && a.template_file.empty())
      throw InvalidArgument(a.model + " has no chat template (tokenizer.chat_template); pass one with --template FILE");
    source = a.template_file.empty() ? *tmpl : read_file(a.template_file, "template file");
    in.bos_token = token_text(g, "bos");
    in.eos_token = token_text(g, "eos");
  } else if (!a.template_file.empty()) {
    source = read_file(a.template_file, "template file");
  } else {
    throw InvalidArgument("wgrt template needs -m MODEL or --template FILE");
  }
  if (a.bos_set) in.bos_token = a.bos;
  if (a.eos_set) in.eos_token = a.eos;
  in.messages = read_json(a.messages, "messages file");
  if (!in.messages.is_array()) throw InvalidArgument("messages file '" + a.messages + "' must hold a JSON array of messages");
  if (!a.tools.empty()) {
    in.tools = read_json(a.tools, "tools file");
    if (!in.tools.is_array()) throw InvalidArgument("tools file '" + a.tools + "' must hold a JSON array of tools");
  }
  if (!a.vars.empty()) {
    in.extra = read_json(a.vars, "variables file");
    if (!in.extra.is_object()) throw InvalidArgument("variables file '" + a.vars + "' must hold a JSON object");
  }
  in.add_generation_prompt = a.add_generation_prompt;
  const text::ChatTemplate tmpl(source);
  const std::string out = tmpl.apply(in);
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw Error("cannot write the prompt to stdout");
}

}  // namespace

void add_template(CLI::App& app) {
  auto* cmd = app.add_subcommand("template", "Render a chat template over a conversation and print the prompt text");
  auto a = std::make_shared<TemplateArgs>();
  cmd->add_option("-m,--model", a->model, "GGUF model whose tokenizer.chat_template (and BOS/EOS texts) to use")
      ->check(CLI::ExistingFile);
  cmd->add_option("--template", a->template_file, "Jinja2 chat template file (overrides the model's)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--messages", a->messages, "JSON file: an array of {role, content, ...} messages")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--tools", a->tools, "JSON file: an array of tool definitions (default: none)")->check(CLI::ExistingFile);
  cmd->add_option("--vars", a->vars, "JSON file: an object of more template variables, e.g. {\"enable_thinking\": false}")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--add-generation-prompt", a->add_generation_prompt, "End with the assistant turn's opening");
  cmd->add_option("--bos-token", a->bos, "BOS token text (default: the model's, else empty)")
      ->each([a](const std::string&) { a->bos_set = true; });
  cmd->add_option("--eos-token", a->eos, "EOS token text (default: the model's, else empty)")
      ->each([a](const std::string&) { a->eos_set = true; });
  cmd->callback([a] { run(*a); });
}

}  // namespace wgrt::cli
