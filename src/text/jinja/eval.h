// Evaluator of a parsed Jinja2 template (ast.h) with jinja2's scoping: a for-loop iteration, a macro call, a
// call/filter/set block each get a child scope; if/elif/else do not; `set` writes the innermost scope and
// namespace() objects carry values out of loops. Undefined names follow jinja2's default Undefined: they
// print as "", are falsy, iterate as empty, and raise when used in arithmetic, called or looked into.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "text/jinja/ast.h"

namespace wgrt::text::jinja {

struct Limits {
  size_t max_output = size_t(16) << 20;     // bytes of rendered text (including macro and block-set bodies)
  int max_call_depth = 200;                 // nested macro calls
  int max_eval_depth = 3000;                // nested evaluation frames in all (keeps the C++ stack bounded)
  uint64_t max_iterations = 10'000'000;     // loop iterations over the whole render
  size_t max_work = size_t(256) << 20;      // bytes of strings/lists made by operators, filters and calls
};

// Renders `tmpl` with the top-level variables `globals` (name -> value). Throws RenderError (message without
// the line; the caller adds it via `error_line`) or RaisedError for raise_exception(). Thread-safe for
// concurrent calls on one read-only tree.
std::string render(const Body& tmpl, const std::map<std::string, Value>& globals, const Limits& limits,
                   int* error_line);

// Filters, tests and attribute access (filters.cpp, tests.cpp, methods.cpp).
Value apply_filter(const std::string& name, const Value& v, Args& args);
bool apply_test(const std::string& name, const Value& v, Args& args);
Value get_attr(const Value& obj, const std::string& name);   // obj.name (jinja2's sandboxed getattr)
Value get_item(const Value& obj, const Value& key);          // obj[key] (jinja2's sandboxed getitem)
Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step);
List iterate(const Value& v);
std::string html_escape(const std::string& s);               // markupsafe.escape: & < > " '
                                 // for-loop items: chars, elements, dict keys
std::string to_json(const Value& v, bool ensure_ascii, const Value& indent, const Value& separators,
                    bool sort_keys);  // Python json.dumps

}  // namespace wgrt::text::jinja
