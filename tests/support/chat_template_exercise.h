// What the chat-template fuzzers do with one input: parse it as a Jinja2 template and render it over a fixed
// conversation (system, user, assistant with a tool call, tool result, non-ASCII text) and two tools, with
// and without the generation prompt, under small bounds (1 MiB output, 10^5 loop iterations) so each input
// stays fast. Header-only and gtest-free: tests/host/fuzz_chat_template_test.cpp and fuzz/fuzz_chat_template.cpp
// use it. wgrt::Error is the expected outcome for bad input; any other exception or a crash is a bug.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "text/jinja/eval.h"
#include "text/jinja/parser.h"
#include "wgrt/error.h"

namespace wgrt::test {

inline const std::map<std::string, text::jinja::Value>& chat_fuzz_globals(bool add_generation_prompt) {
  using text::jinja::Value;
  static const auto make = [](bool gp) {
    const auto j = nlohmann::json::parse(R"([
      {"role": "system", "content": "You are helpful. Réponds en français 😀"},
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2.5, null, true]}}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "{\"t\": 18}"},
      {"role": "user", "content": "  thanks\n"}])");
    const auto tools = nlohmann::json::parse(R"([{"type": "function", "function": {"name": "get_weather",
      "description": "Get the weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
      "required": ["city"]}}}, {"type": "function", "function": {"name": "add", "parameters": {}}}])");
    std::function<Value(const nlohmann::json&)> conv = [&](const nlohmann::json& x) -> Value {
      if (x.is_null()) return Value::none();
      if (x.is_boolean()) return Value::boolean(x.get<bool>());
      if (x.is_number_integer()) return Value::integer(x.get<int64_t>());
      if (x.is_number()) return Value::real(x.get<double>());
      if (x.is_string()) return Value::str(x.get<std::string>());
      if (x.is_array()) {
        text::jinja::List l;
        for (const auto& e : x) l.push_back(conv(e));
        return Value::make_list(std::move(l));
      }
      Value d = Value::make_dict();
      for (auto it = x.begin(); it != x.end(); ++it) d.dict->items.emplace_back(Value::str(it.key()), conv(it.value()));
      return d;
    };
    std::map<std::string, Value> g;
    g["messages"] = conv(j);
    g["tools"] = conv(tools);
    g["add_generation_prompt"] = Value::boolean(gp);
    g["bos_token"] = Value::str("<s>");
    g["eos_token"] = Value::str("</s>");
    g["range"] = Value::function("range", [](text::jinja::Args& a) {
      int64_t n = a.pos.empty() || a.pos[0].kind != text::jinja::Kind::Int ? 0 : std::min<int64_t>(a.pos[0].i, 1000);
      text::jinja::List l;
      for (int64_t k = 0; k < n; ++k) l.push_back(Value::integer(k));
      return Value::make_list(std::move(l));
    });
    g["namespace"] = Value::function("namespace", [](text::jinja::Args& a) {
      Value d = Value::make_namespace();
      for (auto& [k, v] : a.kw) d.dict->set(Value::str(k), v);
      return d;
    });
    g["raise_exception"] = Value::function("raise_exception", [](text::jinja::Args&) -> Value {
      throw text::jinja::RaisedError("raised");
    });
    return g;
  };
  static const auto with = make(true), without = make(false);
  return add_generation_prompt ? with : without;
}

// Returns the bytes rendered (0 when both renders raised).
inline size_t exercise_chat_template(std::span<const uint8_t> data) {
  using namespace text::jinja;
  const std::string src(data.begin(), data.end());
  const Body body = parse(lex(src));  // FormatError for bad syntax
  Limits lim;
  lim.max_output = size_t(1) << 20;
  lim.max_iterations = 100000;
  lim.max_work = size_t(32) << 20;
  size_t n = 0;
  for (bool gp : {false, true}) {
    try {
      n += render(body, chat_fuzz_globals(gp), lim, nullptr).size();
    } catch (const RenderError&) {
    } catch (const RaisedError&) {
    }
  }
  return n;
}

}  // namespace wgrt::test
