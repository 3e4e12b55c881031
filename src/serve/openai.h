// The OpenAI API shapes wgrt serve speaks (https://platform.openai.com/docs/api-reference, as llama-server
// implements them): request bodies of POST /v1/chat/completions and /v1/completions parsed and checked into
// ParsedRequest, and the response objects (whole and streamed chunks), error objects included.
// Unsupported fields are ignored (as llama-server does), except n != 1 (400). Threads: any (pure functions).
#pragma once
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "serve/job.h"
#include "wgrt/llm.h"

namespace wgrt::serve {

// An HTTP error answered with an OpenAI error object.
struct ApiError : std::runtime_error {
  int status;
  std::string type, param;
  ApiError(int s, std::string msg, std::string t = "invalid_request_error", std::string p = "")
      : std::runtime_error(std::move(msg)), status(s), type(std::move(t)), param(std::move(p)) {}
};

struct ParsedRequest {
  bool chat = false;
  bool stream = false, include_usage = false;  // stream_options.include_usage
  std::vector<ChatMessage> messages;          // chat: role + text content (text parts joined)
  std::string prompt;                         // completions
  GenParams params;                           // max_tokens -1 when not given
  int n = 1;                                  // choices: 1..kMaxChoices (the server also caps it at its slots)
};

constexpr int kMaxChoices = 16;

// Throws ApiError 400 naming the field for malformed JSON, a body that is not an object, a missing or
// mistyped messages/prompt, or a field of the wrong type or range (max_tokens >= 1, temperature in [0, 2],
// top_p in (0, 1], min_p in [0, 1], top_k >= 0, repeat_penalty in (0, 10] (llama-server's name; over the last 64
// tokens), seed an integer, stop a string or up to 16 strings, n in [1, kMaxChoices],
// ignore_eos a boolean: llama-server's extension, end tokens do not end the request, as benchmarks want;
// logprobs: completions an integer 0..5, chat a boolean with top_logprobs 0..20 (which needs logprobs true); not
// with stream true).
ParsedRequest parse_request(const std::string& body, bool chat);

// {"error": {"message", "type", "param", "code"}}.
nlohmann::json error_body(const std::string& message, const std::string& type, const std::string& param, int code);

struct ResponseIds {
  std::string id, model;
  int64_t created = 0;
};
// results: one per choice (prompt counted once, completions summed).
nlohmann::json usage_json(std::span<const JobResult> results);
// The whole response (chat.completion / text_completion).
nlohmann::json full_response(const ParsedRequest& req, const ResponseIds& ids, std::span<const JobResult> results);
// One streamed chunk of choice `index`: text (may be empty with role for the first chat chunk); finish_reason
// "" = null.
nlohmann::json chunk(const ParsedRequest& req, const ResponseIds& ids, const std::string& text,
                     const std::string& finish_reason, bool first, int index = 0);
// The usage chunk at the end of a stream (stream_options.include_usage): choices [] and usage.
nlohmann::json usage_chunk(const ParsedRequest& req, const ResponseIds& ids, std::span<const JobResult> results);
// One server-sent event: "data: <json>\n\n".
std::string sse_event(const nlohmann::json& j);
inline const char* kSseDone = "data: [DONE]\n\n";

}  // namespace wgrt::serve
