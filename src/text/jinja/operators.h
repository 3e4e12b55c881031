// Python operator semantics on interpreter values: + - * / // % ** (int results checked against 64 bits; str
// and list + and *, markupsafe escaping for Markup + str), ~ (str() of both), == != < > <= >= and in / not
// in. Errors are RenderError; Undefined operands raise like jinja2's Undefined.
#pragma once
#include <string>

#include "text/jinja/value.h"

namespace wgrt::text::jinja {

inline int64_t checked(__int128 v) {  // an int result, or RenderError past 64 bits
  if (v > INT64_MAX || v < INT64_MIN) throw RenderError("integer result out of the 64-bit range");
  return int64_t(v);
}
inline int64_t as_int(const Value& v) { return v.kind == Kind::Bool ? int64_t(v.b) : v.i; }  // int or bool

bool contains(const Value& hay, const Value& needle);  // needle in hay
bool compare_op(const std::string& op, const Value& a, const Value& b);  // op: == != < > <= >= in notin
// op: + - * / // % ** ~; strings and repeated sequences may not exceed max_size bytes/items.
Value binary_op(const std::string& op, const Value& a, const Value& b, size_t max_size);

}  // namespace wgrt::text::jinja
