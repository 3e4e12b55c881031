// The value type of the Jinja2 interpreter: Python's data model as chat templates see it (None, bool, int,
// float, str, list/tuple, dict, jinja2's Undefined, namespace(), callables). Strings are UTF-8; lengths,
// indices and slices count code points like Python's str. Lists and dicts are shared by reference (as in
// Python); dicts keep insertion order. Follows Python 3 semantics for truth, equality, ordering and str().
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "wgrt/error.h"

namespace wgrt::text::jinja {

struct Value;
struct Args;
using List = std::vector<Value>;
struct Dict;
using Func = std::function<Value(Args&)>;

enum class Kind { Undefined, None, Bool, Int, Float, String, List, Tuple, Dict, Namespace, Func };

struct Value {
  Kind kind = Kind::Undefined;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;                 // String; for Undefined: the missing name (for messages); for Func: its name
  std::shared_ptr<List> list;    // List, Tuple
  std::shared_ptr<Dict> dict;    // Dict, Namespace
  std::shared_ptr<Func> func;    // Func
  bool safe_hint = false;        // Undefined from an unsafe (mutating) method: calling it is a security error
  bool markup = false;           // String: a markupsafe.Markup (from |safe or |escape): `+` HTML-escapes the other side
  bool gen = false;              // List: a Python generator/iterator (select, map, ...): always truthy, no
                                 // len-free indexing, not JSON serializable, prints as "<generator object>"

  static Value undefined(std::string name = "") { Value v; v.s = std::move(name); return v; }
  static Value none() { Value v; v.kind = Kind::None; return v; }
  static Value boolean(bool x) { Value v; v.kind = Kind::Bool; v.b = x; return v; }
  static Value integer(int64_t x) { Value v; v.kind = Kind::Int; v.i = x; return v; }
  static Value real(double x) { Value v; v.kind = Kind::Float; v.f = x; return v; }
  static Value str(std::string x) { Value v; v.kind = Kind::String; v.s = std::move(x); return v; }
  static Value make_list(List x = {}, bool tuple = false);
  static Value generator(List x) { Value v = make_list(std::move(x)); v.gen = true; return v; }
  static Value make_dict();
  static Value make_namespace();
  static Value function(std::string name, Func f);

  bool is_undefined() const { return kind == Kind::Undefined; }
  bool is_none() const { return kind == Kind::None; }
  bool is_string() const { return kind == Kind::String; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool is_list() const { return kind == Kind::List || kind == Kind::Tuple; }
  bool is_dict() const { return kind == Kind::Dict; }
  double as_double() const { return kind == Kind::Float ? f : double(kind == Kind::Bool ? int64_t(b) : i); }
};

struct Dict {
  std::vector<std::pair<Value, Value>> items;
  const Value* find(const Value& key) const;
  Value* find(const Value& key);
  void set(const Value& key, Value v);
  const Value* find(const std::string& key) const { return find(Value::str(key)); }
};

// A call's arguments: positional, then keyword (in call order).
struct Args {
  std::vector<Value> pos;
  std::vector<std::pair<std::string, Value>> kw;
  // Argument `idx` by position or name `name`, else nullptr. Marks keyword arguments as used.
  const Value* get(size_t idx, const char* name) const;
};

// A runtime error inside the template (becomes wgrt::FormatError with the line number).
struct RenderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// raise_exception(msg) from the template (becomes wgrt::InvalidArgument with msg).
struct RaisedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* type_name(const Value& v);     // Python's type name: 'str', 'int', 'dict', 'Undefined', ...
bool truthy(const Value& v);
bool equal(const Value& a, const Value& b);
int compare(const Value& a, const Value& b);  // -1/0/1; throws RenderError for unorderable types
std::string to_str(const Value& v);           // Python str() (Undefined prints as "")
std::string repr(const Value& v);             // Python repr()
std::string float_repr(double d);             // Python repr(float): shortest round-trip digits
[[noreturn]] void undefined_error(const Value& v);

// Code points of UTF-8 text (invalid bytes become U+FFFD so every input has a definite length).
std::u32string decode(const std::string& s);
std::string encode(const std::u32string& s);
size_t cp_length(const std::string& s);
bool is_py_space(char32_t c);  // Python's str.isspace()
// Decimal digits to an int64; false when empty, not all digits, or out of range.
bool parse_int64(const std::string& digits, int64_t* out);

}  // namespace wgrt::text::jinja
