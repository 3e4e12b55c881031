// The Jinja2 interpreter on our own feature snippets (tests/corpus/chat_template/*.jinja) against the
// committed jinja2 goldens (tests/golden/chat_template_snippets.json, made by
// tests/golden/make_goldens_chat_templates.py --snippets with python3-jinja2 3.1.2, driven like HF):
// byte-identical output, the same raise_exception message, or an error where jinja2 errs. Plus the bounds
// (recursion, nesting, loop iterations, output size, source size), error format and concurrent apply().
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/paths.h"
#include "text/jinja/eval.h"
#include "text/jinja/parser.h"
#include "text/chat_template.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

namespace fs = std::filesystem;
using text::ChatTemplate;
using text::ChatTemplateInputs;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

nlohmann::json goldens() { return nlohmann::json::parse(slurp(test::source_path("tests/golden/chat_template_snippets.json"))); }

ChatTemplateInputs snippet_inputs(const nlohmann::json& g) {
  ChatTemplateInputs in;
  in.messages = g["messages"];
  in.tools = g["tools"];
  in.add_generation_prompt = true;
  in.bos_token = g["bos_token"];
  in.eos_token = g["eos_token"];
  return in;
}

TEST(ChatTemplate, SnippetsMatchJinja2) {
  const auto g = goldens();
  setenv("WGRT_TEMPLATE_NOW", g["now"].get<std::string>().c_str(), 1);
  const auto in = snippet_inputs(g);
  const fs::path dir = test::source_path("tests/corpus/chat_template");
  size_t n = 0, ok = 0, errors = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".jinja") continue;
    SCOPED_TRACE(name);
    ASSERT_TRUE(g["snippets"].contains(name)) << "snippet without a golden: rerun make_goldens_chat_templates.py --snippets";
    const auto& want = g["snippets"][name];
    const std::string expect = want["expect"];
    ++n;
    try {
      const std::string got = ChatTemplate(slurp(e.path())).apply(in);
      EXPECT_EQ(expect, "ok") << "jinja2 failed (" << want["message"] << ") but wgrt rendered:\n" << got;
      if (expect == "ok") {
        EXPECT_EQ(got, want["output"].get<std::string>());
        ok += got == want["output"].get<std::string>();
      }
    } catch (const InvalidArgument& ex) {
      EXPECT_EQ(expect, "raise") << ex.what();
      if (expect == "raise") EXPECT_EQ(std::string(ex.what()), want["message"].get<std::string>());
      errors += expect == "raise";
    } catch (const FormatError& ex) {
      EXPECT_EQ(expect, "error") << ex.what();
      EXPECT_EQ(std::string(ex.what()).rfind("chat template ", 0), 0u) << ex.what();
      EXPECT_EQ(std::string(ex.what()).find('\n'), std::string::npos) << ex.what();
      errors += expect == "error";
    }
  }
  std::printf("chat template snippets: %zu, %zu rendered identically, %zu errors matched\n", n, ok, errors);
  EXPECT_EQ(n, g["snippets"].size());
  EXPECT_GE(n, 25u);
}

std::string render(const std::string& src, ChatTemplateInputs in = {}) { return ChatTemplate(src).apply(in); }

text::jinja::Value ChatTemplate_range() {
  using text::jinja::Value;
  return Value::function("range", [](text::jinja::Args& a) {
    text::jinja::List l;
    for (int64_t k = 0; k < a.pos.at(0).i; ++k) l.push_back(Value::integer(k));
    return Value::make_list(std::move(l));
  });
}

void expect_format_error(const std::string& src, const std::string& needle) {
  try {
    render(src);
    ADD_FAILURE() << "no error for: " << src.substr(0, 80);
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ChatTemplate, Bounds) {
  expect_format_error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "macro calls nested deeper than 200");
  expect_format_error("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}", "nested more than 200 levels");
  expect_format_error("{{ " + std::string(300, '[') + std::string(300, ']') + " }}", "nested more than 200 levels");
  expect_format_error("{{ " + std::string(300, '-') + "1 }}", "nested more than 200 levels");
  std::string nots;
  for (int k = 0; k < 300; ++k) nots += "not ";
  expect_format_error("{{ " + nots + "1 }}", "nested more than 200 levels");
  std::string ifs;
  for (int k = 0; k < 300; ++k) ifs += "{% if true %}";
  expect_format_error(ifs, "nested more than 200 levels");
  {  // the iteration bound, scaled down (the API's 10^7 takes seconds to reach)
    text::jinja::Limits lim;
    lim.max_iterations = 5000;
    const auto body = text::jinja::parse(text::jinja::lex("{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}"));
    EXPECT_THROW(text::jinja::render(body, {{"range", ChatTemplate_range()}}, lim, nullptr), text::jinja::RenderError);
    lim.max_iterations = 10100;
    EXPECT_NO_THROW(text::jinja::render(body, {{"range", ChatTemplate_range()}}, lim, nullptr));
  }
  expect_format_error("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "output is larger than the 16 MiB bound");
  expect_format_error("{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                      "larger than the output bound");
  expect_format_error("{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% endfor %}",
                      "MiB of intermediate values");
  EXPECT_THROW(ChatTemplate(std::string((1 << 20) + 1, 'x')), FormatError);
  // Within the bounds: a 150-deep recursion and 10^5 iterations are fine.
  EXPECT_EQ(render("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{% else %}done{% endif %}{% endmacro %}{{ f(150) }}"), "done");
  EXPECT_EQ(render("{% set ns = namespace(c=0) %}{% for i in range(100000) %}{% set ns.c = ns.c + 1 %}{% endfor %}{{ ns.c }}"),
            "100000");
}

TEST(ChatTemplate, ErrorsNameTheLine) {
  try {
    render("line one\n{{ 'ok' }}\n{{ nothing.attr }}");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_STREQ(e.what(), "chat template line 3: 'nothing' is undefined");
  }
  try {
    render("a\n\n{% for x in %}");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_STREQ(e.what(), "chat template line 3: unexpected end of statement block");
  }
  try {
    render("{{ raise_exception('Only user and assistant roles are supported!') }}");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "Only user and assistant roles are supported!");
  }
}

TEST(ChatTemplate, InputsReachTheTemplate) {
  ChatTemplateInputs in;
  in.messages = nlohmann::json::parse(R"([{"role": "user", "content": "hé"}])");
  in.bos_token = "<s>";
  in.eos_token = "</s>";
  in.add_generation_prompt = true;
  in.extra = {{"enable_thinking", false}};
  const char* src =
      "{{ bos_token }}{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ eos_token }}"
      "{{ add_generation_prompt }}{{ tools is none }}{{ documents is none }}{{ enable_thinking }}";
  EXPECT_EQ(render(src, in), "<s>[user:hé]</s>TrueTrueTrueFalse");
  in.tools = nlohmann::json::parse(R"([{"type": "function"}])");
  EXPECT_EQ(render("{{ tools | length }}{{ tools[0].type }}", in), "1function");
  // Key order: ordered_json keeps the file's order (as Python dicts do); a plain nlohmann::json sorts.
  const char* tool = R"([{"type": "function", "function": {"name": "f", "description": "d"}}])";
  in.tools = nlohmann::ordered_json::parse(tool);
  EXPECT_EQ(render("{{ tools | tojson }}", in), R"([{"type": "function", "function": {"name": "f", "description": "d"}}])");
  in.tools = nlohmann::json::parse(tool);
  EXPECT_EQ(render("{{ tools | tojson }}", in), R"([{"function": {"description": "d", "name": "f"}, "type": "function"}])");
}

TEST(ChatTemplate, ConcurrentApplyMatchesSerial) {
  const auto g = goldens();
  const auto in = snippet_inputs(g);
  const ChatTemplate t(slurp(test::source_path("tests/corpus/chat_template/hf_style.jinja")));
  const std::string want = t.apply(in);
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int r = 0; r < 50; ++r) same[size_t(k)] += t.apply(in) == want;
    });
  for (auto& th : threads) th.join();
  for (int s : same) EXPECT_EQ(s, 50);
  EXPECT_GT(want.size(), 100u);
}

}  // namespace
}  // namespace wgrt
