// Python's binary operators, `in` and comparison chains for interpreter values (see operators.h).
#include "text/jinja/operators.h"

#include <algorithm>
#include <cmath>

#include "text/jinja/eval.h"

namespace wgrt::text::jinja {

bool contains(const Value& hay, const Value& needle) {
  if (hay.is_string()) {
    if (!needle.is_string()) throw RenderError(std::string("'in <string>' needs a string on the left, not '") + type_name(needle) + "'");
    return hay.s.find(needle.s) != std::string::npos;
  }
  if (hay.is_list()) {
    for (const auto& x : *hay.list)
      if (equal(x, needle)) return true;
    return false;
  }
  if (hay.kind == Kind::Dict) return hay.dict->find(needle) != nullptr;
  if (hay.is_undefined()) return false;
  throw RenderError(std::string("argument of type '") + type_name(hay) + "' is not iterable");
}

bool compare_op(const std::string& o, const Value& a, const Value& b) {
  if (o == "==") return equal(a, b);
  if (o == "!=") return !equal(a, b);
  if (o == "in") return contains(b, a);
  if (o == "notin") return !contains(b, a);
  const int c = compare(a, b);
  if (o == "<") return c < 0;
  if (o == ">") return c > 0;
  if (o == "<=") return c <= 0;
  return c >= 0;
}

Value binary_op(const std::string& o, const Value& a, const Value& b, size_t max_size) {
  if (o == "~") {
    std::string s = to_str(a) + to_str(b);
    if (s.size() > max_size) throw RenderError("a string is larger than the output bound");
    return Value::str(std::move(s));
  }
  if (a.is_undefined()) undefined_error(a);
  if (b.is_undefined()) undefined_error(b);
  auto bad = [&]() -> Value {
    throw RenderError("unsupported operand types for " + o + ": '" + type_name(a) + "' and '" + type_name(b) + "'");
  };
  if (a.is_number() && b.is_number()) {
    const bool fl = a.kind == Kind::Float || b.kind == Kind::Float;
    const double x = a.as_double(), y = b.as_double();
    const int64_t i = as_int(a), j = as_int(b);
    if (o == "+") return fl ? Value::real(x + y) : Value::integer(checked(__int128(i) + j));
    if (o == "-") return fl ? Value::real(x - y) : Value::integer(checked(__int128(i) - j));
    if (o == "*") return fl ? Value::real(x * y) : Value::integer(checked(__int128(i) * j));
    if (o == "/") {
      if (y == 0) throw RenderError("division by zero");
      return Value::real(x / y);
    }
    if (o == "//" || o == "%") {
      if (fl ? y == 0 : j == 0) throw RenderError(o == "%" ? "modulo by zero" : "integer division by zero");
      if (fl) {
        double m = std::fmod(x, y);
        if (m != 0 && ((m < 0) != (y < 0))) m += y;
        return o == "%" ? Value::real(m) : Value::real(std::floor((x - m) / y));
      }
      int64_t q = i / j, r = i % j;
      if (r != 0 && ((r < 0) != (j < 0))) --q, r += j;
      return o == "%" ? Value::integer(r) : Value::integer(checked(q));
    }
    if (o == "**") {
      if (!fl && j >= 0) {
        __int128 r = 1;
        for (int64_t k = 0; k < j; ++k) {
          r *= i;
          checked(r);
          if (r == 0 || r == 1) break;
        }
        return Value::integer(checked(r));
      }
      return Value::real(std::pow(x, y));
    }
    return bad();
  }
  if (o == "+" && a.is_string() && b.is_string()) {
    if (!a.markup && !b.markup) return binary_op("~", a, b, max_size);
    Value r = binary_op("~", a.markup ? a : Value::str(html_escape(a.s)), b.markup ? b : Value::str(html_escape(b.s)), max_size);
    r.markup = true;  // markupsafe: Markup + str escapes the str
    return r;
  }
  if (o == "+" && a.is_list() && a.kind == b.kind && !a.gen && !b.gen) {
    List l = *a.list;
    l.insert(l.end(), b.list->begin(), b.list->end());
    return Value::make_list(std::move(l), a.kind == Kind::Tuple);
  }
  if (o == "*" && (a.is_string() || a.is_list() || b.is_string() || b.is_list())) {
    const Value& seq = a.is_string() || a.is_list() ? a : b;
    const Value& cnt = &seq == &a ? b : a;
    if (cnt.kind != Kind::Int && cnt.kind != Kind::Bool) return bad();
    const int64_t n = std::max<int64_t>(0, as_int(cnt));
    const size_t unit = seq.is_string() ? seq.s.size() : seq.list->size();
    if (unit && uint64_t(n) > max_size / unit) throw RenderError("a repeated value is larger than the output bound");
    if (seq.is_string()) {
      std::string s;
      for (int64_t k = 0; k < n; ++k) s += seq.s;
      return Value::str(std::move(s));
    }
    List l;
    for (int64_t k = 0; k < n; ++k) l.insert(l.end(), seq.list->begin(), seq.list->end());
    return Value::make_list(std::move(l), seq.kind == Kind::Tuple);
  }
  if (o == "%" && a.is_string()) throw RenderError("printf-style '%' string formatting is not supported");
  return bad();
}

}  // namespace wgrt::text::jinja
