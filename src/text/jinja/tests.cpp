// jinja2's built-in tests (`x is defined`, `x is string`, ...), with jinja2 3.1's definitions: `number`
// includes booleans, `sequence`/`iterable` include strings, dicts and Undefined, `mapping` is dicts only.
#include <cmath>
#include <set>

#include "text/jinja/eval.h"
#include "text/jinja/parser.h"

namespace wgrt::text::jinja {
namespace {

const std::set<std::string>& test_names() {
  static const std::set<std::string> k = {
      "defined", "undefined", "none",  "boolean", "true",     "false",   "integer",  "float",   "number",
      "string",  "mapping",   "iterable", "sequence", "callable", "sameas", "odd",  "even",    "divisibleby",
      "lower",   "upper",     "in",    "==",      "eq",       "equalto", "!=",       "ne",      ">",
      "gt",      "greaterthan", ">=",  "ge",      "<",        "lt",      "lessthan", "<=",      "le",
      "escaped", "filter",    "test"};
  return k;
}

const Value& arg(const Args& a, const std::string& test) {
  if (a.pos.empty()) throw RenderError("test '" + test + "' needs an argument");
  return a.pos[0];
}

}  // namespace

bool known_test(const std::string& name) { return test_names().count(name) != 0; }

bool apply_test(const std::string& n, const Value& v, Args& a) {
  if (!known_test(n)) throw RenderError("no test named '" + n + "'");
  static const std::set<std::string> one_arg = {"sameas", "divisibleby", "in", "==", "eq", "equalto", "!=", "ne", ">",
                                                "gt", "greaterthan", ">=", "ge", "<", "lt", "lessthan", "<=", "le"};
  const size_t want = one_arg.count(n);
  if (a.pos.size() + a.kw.size() != want)
    throw RenderError("test '" + n + "' takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s") + ", got " +
                      std::to_string(a.pos.size() + a.kw.size()));
  if (!a.kw.empty()) a.pos.push_back(a.kw[0].second);
  const Kind k = v.kind;
  if (n == "defined") return k != Kind::Undefined;
  if (n == "undefined") return k == Kind::Undefined;
  if (n == "none") return k == Kind::None;
  if (n == "boolean") return k == Kind::Bool;
  if (n == "true") return k == Kind::Bool && v.b;
  if (n == "false") return k == Kind::Bool && !v.b;
  if (n == "integer") return k == Kind::Int;
  if (n == "float") return k == Kind::Float;
  if (n == "number") return v.is_number();
  if (n == "string") return k == Kind::String;
  if (n == "mapping") return k == Kind::Dict;
  if (n == "iterable" || n == "sequence")
    return k == Kind::String || (v.is_list() && !(v.gen && n == "sequence")) || k == Kind::Dict || k == Kind::Undefined;
  if (n == "callable") return k == Kind::Func;
  if (n == "escaped") return k == Kind::String && v.markup;
  if (n == "filter") return v.is_string() && known_filter(v.s);
  if (n == "test") return v.is_string() && known_test(v.s);
  if (n == "sameas") {
    const Value& o = arg(a, n);
    if (k != o.kind) return false;
    if (v.is_list()) return v.list == o.list;
    if (k == Kind::Dict || k == Kind::Namespace) return v.dict == o.dict;
    return equal(v, o);
  }
  if (n == "odd" || n == "even" || n == "divisibleby") {
    if (v.is_undefined()) undefined_error(v);
    if (!v.is_number()) throw RenderError("test '" + n + "' needs a number, got a '" + type_name(v) + "'");
    const Value& d = n == "divisibleby" ? arg(a, n) : Value::integer(2);
    if (!d.is_number()) throw RenderError("divisibleby needs a number");
    if (k == Kind::Float || d.kind == Kind::Float) {  // Python: value % num on floats
      const double y = d.as_double();
      if (y == 0) throw RenderError("float modulo by zero");
      double m = std::fmod(v.as_double(), y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return n == "odd" ? m == 1 : m == 0;
    }
    const int64_t di = d.kind == Kind::Bool ? d.b : d.i;
    if (di == 0) throw RenderError("integer division or modulo by zero");
    int64_t r = (k == Kind::Bool ? int64_t(v.b) : v.i) % di;
    if (r != 0 && ((r < 0) != (di < 0))) r += di;
    return n == "odd" ? r == 1 : r == 0;
  }
  if (n == "lower" || n == "upper") {
    Value s = Value::str(to_str(v));
    Args none;
    return truthy((*get_attr(s, n == "lower" ? "islower" : "isupper").func)(none));
  }
  const Value& o = arg(a, n);
  if (n == "in") {
    if (o.is_string()) return v.is_string() && o.s.find(v.s) != std::string::npos;
    if (o.kind == Kind::Dict) return o.dict->find(v) != nullptr;
    for (const Value& x : iterate(o))
      if (equal(x, v)) return true;
    return false;
  }
  if (n == "==" || n == "eq" || n == "equalto") return equal(v, o);
  if (n == "!=" || n == "ne") return !equal(v, o);
  const int c = compare(v, o);
  if (n == ">" || n == "gt" || n == "greaterthan") return c > 0;
  if (n == ">=" || n == "ge") return c >= 0;
  if (n == "<" || n == "lt" || n == "lessthan") return c < 0;
  return c <= 0;
}

}  // namespace wgrt::text::jinja
