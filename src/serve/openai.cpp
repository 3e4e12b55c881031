// OpenAI request parsing and response objects (openai.h).
#include "serve/openai.h"

#include <fmt/format.h>

#include <cmath>
#include <random>

namespace wgrt::serve {

using nlohmann::json;

namespace {

ApiError bad(const std::string& param, const std::string& msg) { return ApiError(400, msg, "invalid_request_error", param); }

double number(const json& body, const char* key, double lo, double hi, bool open_low) {
  const json& v = body.at(key);
  if (!v.is_number()) throw bad(key, fmt::format("'{}' must be a number", key));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x > hi || (open_low ? x <= lo : x < lo))
    throw bad(key, fmt::format("'{}' must be in {}{}, {}], got {}", key, open_low ? "(" : "[", lo, hi, x));
  return x;
}

int64_t integer(const json& body, const char* key, int64_t lo) {
  const json& v = body.at(key);
  if (!v.is_number_integer()) throw bad(key, fmt::format("'{}' must be an integer", key));
  const int64_t x = v.get<int64_t>();
  if (x < lo) throw bad(key, fmt::format("'{}' must be at least {}, got {}", key, lo, x));
  return x;
}

std::string text_content(const json& m, size_t i) {
  if (!m.contains("content") || m["content"].is_null()) return "";
  const json& c = m["content"];
  if (c.is_string()) return c.get<std::string>();
  if (c.is_array()) {  // content parts: only text parts are supported
    std::string s;
    for (const json& part : c) {
      // A part's "type" of another JSON type is a 400 too (json::value would throw its own type_error).
      const bool text_part = part.is_object() && part.contains("type") && part["type"].is_string() &&
                             part["type"].get<std::string>() == "text";
      if (!text_part || !part.contains("text") || !part["text"].is_string())
        throw bad(fmt::format("messages[{}].content", i), fmt::format("messages[{}].content: only text parts are supported", i));
      s += part["text"].get<std::string>();
    }
    return s;
  }
  throw bad(fmt::format("messages[{}].content", i), fmt::format("messages[{}].content must be a string or an array of text parts", i));
}

}  // namespace

ParsedRequest parse_request(const std::string& text, bool chat) {
  json body = json::parse(text, nullptr, false);
  if (body.is_discarded()) throw bad("", "the request body is not valid JSON");
  if (!body.is_object()) throw bad("", "the request body must be a JSON object");
  ParsedRequest r;
  r.chat = chat;
  if (chat) {
    if (!body.contains("messages")) throw bad("messages", "'messages' is required");
    const json& ms = body["messages"];
    if (!ms.is_array() || ms.empty()) throw bad("messages", "'messages' must be a non-empty array");
    for (size_t i = 0; i < ms.size(); ++i) {
      const json& m = ms[i];
      if (!m.is_object()) throw bad("messages", fmt::format("messages[{}] must be an object", i));
      if (!m.contains("role") || !m["role"].is_string())
        throw bad(fmt::format("messages[{}].role", i), fmt::format("messages[{}].role must be a string", i));
      r.messages.push_back({m["role"].get<std::string>(), text_content(m, i)});
    }
  } else {
    if (!body.contains("prompt")) throw bad("prompt", "'prompt' is required");
    const json& p = body["prompt"];
    if (p.is_string()) r.prompt = p.get<std::string>();
    else if (p.is_array() && p.size() == 1 && p[0].is_string()) r.prompt = p[0].get<std::string>();
    else throw bad("prompt", "'prompt' must be a string (or an array of one string)");
  }
  GenParams& g = r.params;
  if (body.contains("stream") && !body["stream"].is_null()) {
    if (!body["stream"].is_boolean()) throw bad("stream", "'stream' must be true or false");
    r.stream = body["stream"].get<bool>();
  }
  if (body.contains("stream_options") && body["stream_options"].is_object()) {
    const json& so = body["stream_options"];
    if (so.contains("include_usage")) {
      if (!so["include_usage"].is_boolean()) throw bad("stream_options.include_usage", "'stream_options.include_usage' must be true or false");
      r.include_usage = so["include_usage"].get<bool>();
    }
  }
  for (const char* key : {"max_tokens", "max_completion_tokens"})
    if (body.contains(key) && !body[key].is_null()) g.max_tokens = int(std::min<int64_t>(integer(body, key, 1), 1 << 30));
  if (body.contains("temperature") && !body["temperature"].is_null()) g.temperature = float(number(body, "temperature", 0, 2, false));
  if (body.contains("top_p") && !body["top_p"].is_null()) g.top_p = float(number(body, "top_p", 0, 1, true));
  if (body.contains("min_p") && !body["min_p"].is_null()) g.min_p = float(number(body, "min_p", 0, 1, false));
  if (body.contains("repeat_penalty") && !body["repeat_penalty"].is_null())
    g.repetition_penalty = float(number(body, "repeat_penalty", 0, 10, true));
  if (body.contains("top_k") && !body["top_k"].is_null()) g.top_k = int(std::min<int64_t>(integer(body, "top_k", 0), 1 << 30));
  if (body.contains("seed") && !body["seed"].is_null()) {
    if (!body["seed"].is_number_integer()) throw bad("seed", "'seed' must be an integer");
    g.seed = body["seed"].is_number_unsigned() ? body["seed"].get<uint64_t>() : uint64_t(body["seed"].get<int64_t>());
  } else {
    g.seed = std::random_device{}() * 0x9e3779b97f4a7c15ull;  // no seed: a different draw each request
  }
  if (body.contains("stop") && !body["stop"].is_null()) {
    const json& s = body["stop"];
    if (s.is_string()) {
      g.stop.push_back(s.get<std::string>());
    } else if (s.is_array() && s.size() <= 16) {
      for (const json& x : s) {
        if (!x.is_string()) throw bad("stop", "'stop' must be a string or an array of strings");
        g.stop.push_back(x.get<std::string>());
      }
    } else {
      throw bad("stop", "'stop' must be a string or an array of up to 16 strings");
    }
    std::erase_if(g.stop, [](const std::string& x) { return x.empty(); });
  }
  if (body.contains("ignore_eos") && !body["ignore_eos"].is_null()) {
    if (!body["ignore_eos"].is_boolean()) throw bad("ignore_eos", "'ignore_eos' must be true or false");
    g.ignore_eos = body["ignore_eos"].get<bool>();
  }
  // logprobs: completions take a count of alternatives (0..5); chat takes logprobs true plus top_logprobs (0..20).
  if (!chat && body.contains("logprobs") && !body["logprobs"].is_null()) {
    g.logprobs = int(std::min<int64_t>(integer(body, "logprobs", 0), 6));
    if (g.logprobs > 5) throw bad("logprobs", "'logprobs' must be at most 5");
  }
  if (chat && body.contains("logprobs") && !body["logprobs"].is_null()) {
    if (!body["logprobs"].is_boolean()) throw bad("logprobs", "'logprobs' must be true or false");
    if (body["logprobs"].get<bool>()) g.logprobs = 0;
  }
  if (chat && body.contains("top_logprobs") && !body["top_logprobs"].is_null()) {
    const int top = int(std::min<int64_t>(integer(body, "top_logprobs", 0), 21));
    if (top > 20) throw bad("top_logprobs", "'top_logprobs' must be at most 20");
    if (g.logprobs < 0) throw bad("top_logprobs", "'top_logprobs' needs 'logprobs': true");
    g.logprobs = top;
  }
  if (g.logprobs >= 0 && r.stream)
    throw bad("logprobs", "logprobs are not available with \"stream\": true: ask without streaming");
  if (body.contains("n") && !body["n"].is_null()) {
    r.n = int(std::min<int64_t>(integer(body, "n", 1), kMaxChoices + 1));
    if (r.n > kMaxChoices) throw bad("n", fmt::format("'n' must be at most {}", kMaxChoices));
  }
  return r;
}

json error_body(const std::string& message, const std::string& type, const std::string& param, int code) {
  return {{"error", {{"message", message}, {"type", type}, {"param", param.empty() ? json(nullptr) : json(param)}, {"code", code}}}};
}

json usage_json(std::span<const JobResult> results) {
  int completion = 0;
  for (const JobResult& r : results) completion += r.completion_tokens;
  const JobResult& r = results.front();  // every choice has the same prompt
  return {{"prompt_tokens", r.prompt_tokens},
          {"completion_tokens", completion},
          {"total_tokens", r.prompt_tokens + completion},
          {"prompt_tokens_details", {{"cached_tokens", r.cached_tokens}}}};
}

static json base(const ParsedRequest& req, const ResponseIds& ids, bool streamed) {
  return {{"id", ids.id},
          {"object", req.chat ? (streamed ? "chat.completion.chunk" : "chat.completion") : "text_completion"},
          {"created", ids.created},
          {"model", ids.model}};
}

// The choice's "logprobs" object: chat {"content": [{token, logprob, bytes, top_logprobs: [...]}]}, completions
// {tokens, token_logprobs, top_logprobs: [{text: logprob}], text_offset}; null when not asked for.
static json logprobs_json(const ParsedRequest& req, const JobResult& r) {
  if (req.params.logprobs < 0) return nullptr;
  auto bytes = [](const std::string& t) {
    json b = json::array();
    for (unsigned char c : t) b.push_back(int(c));
    return b;
  };
  if (req.chat) {
    json content = json::array();
    for (const TokenLogprob& t : r.logprobs) {
      json top = json::array();
      for (const auto& [text, lp] : t.top) top.push_back({{"token", text}, {"logprob", lp}, {"bytes", bytes(text)}});
      content.push_back({{"token", t.token}, {"logprob", t.logprob}, {"bytes", bytes(t.token)}, {"top_logprobs", top}});
    }
    return {{"content", content}};
  }
  json tokens = json::array(), lps = json::array(), tops = json::array(), offsets = json::array();
  size_t offset = 0;
  for (const TokenLogprob& t : r.logprobs) {
    tokens.push_back(t.token);
    lps.push_back(t.logprob);
    json top = json::object();
    for (const auto& [text, lp] : t.top) top[text] = lp;
    tops.push_back(top);
    offsets.push_back(offset);
    offset += t.token.size();
  }
  return {{"tokens", tokens}, {"token_logprobs", lps}, {"top_logprobs", tops}, {"text_offset", offsets}};
}

json full_response(const ParsedRequest& req, const ResponseIds& ids, std::span<const JobResult> results) {
  json j = base(req, ids, false);
  j["choices"] = json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    const JobResult& r = results[i];
    json choice = {{"index", i}, {"finish_reason", r.finish_reason}, {"logprobs", logprobs_json(req, r)}};
    if (req.chat) choice["message"] = {{"role", "assistant"}, {"content", r.text}};
    else choice["text"] = r.text;
    j["choices"].push_back(choice);
  }
  j["usage"] = usage_json(results);
  return j;
}

json chunk(const ParsedRequest& req, const ResponseIds& ids, const std::string& text, const std::string& finish_reason,
           bool first, int index) {
  json j = base(req, ids, true);
  json choice = {{"index", index}, {"finish_reason", finish_reason.empty() ? json(nullptr) : json(finish_reason)}, {"logprobs", nullptr}};
  if (req.chat) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    if (!text.empty() || (first && finish_reason.empty())) delta["content"] = text;
    choice["delta"] = delta;
  } else {
    choice["text"] = text;
  }
  j["choices"] = json::array({choice});
  return j;
}

json usage_chunk(const ParsedRequest& req, const ResponseIds& ids, std::span<const JobResult> results) {
  json j = base(req, ids, true);
  j["choices"] = json::array();
  j["usage"] = usage_json(results);
  return j;
}

std::string sse_event(const json& j) {
  // error_handler_t::replace: invalid UTF-8 never reaches a client as broken JSON (the text is whole characters).
  return "data: " + j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

}  // namespace wgrt::serve
