// Python semantics of the interpreter's values: truth, equality, ordering, str() and repr().
#include "text/jinja/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace wgrt::text::jinja {

Value Value::make_list(List x, bool tuple) {
  Value v;
  v.kind = tuple ? Kind::Tuple : Kind::List;
  v.list = std::make_shared<List>(std::move(x));
  return v;
}
Value Value::make_dict() {
  Value v;
  v.kind = Kind::Dict;
  v.dict = std::make_shared<Dict>();
  return v;
}
Value Value::make_namespace() {
  Value v = make_dict();
  v.kind = Kind::Namespace;
  return v;
}
Value Value::function(std::string name, Func f) {
  Value v;
  v.kind = Kind::Func;
  v.s = std::move(name);
  v.func = std::make_shared<Func>(std::move(f));
  return v;
}

const Value* Dict::find(const Value& key) const {
  for (const auto& [k, v] : items)
    if (equal(k, key)) return &v;
  return nullptr;
}
Value* Dict::find(const Value& key) {
  for (auto& [k, v] : items)
    if (equal(k, key)) return &v;
  return nullptr;
}
void Dict::set(const Value& key, Value v) {
  if (Value* p = find(key)) *p = std::move(v);
  else items.emplace_back(key, std::move(v));
}

const Value* Args::get(size_t idx, const char* name) const {
  if (idx < pos.size()) return &pos[idx];
  for (const auto& [k, v] : kw)
    if (k == name) return &v;
  return nullptr;
}

const char* type_name(const Value& v) {
  switch (v.kind) {
    case Kind::Undefined: return "Undefined";
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Namespace: return "Namespace";
    case Kind::Func: return "function";
  }
  return "?";
}

void undefined_error(const Value& v) {
  if (v.safe_hint) throw RenderError(v.s);
  throw RenderError(v.s.empty() ? "a value is undefined" : "'" + v.s + "' is undefined");
}

bool truthy(const Value& v) {
  switch (v.kind) {
    case Kind::Undefined:
    case Kind::None: return false;
    case Kind::Bool: return v.b;
    case Kind::Int: return v.i != 0;
    case Kind::Float: return v.f != 0;
    case Kind::String: return !v.s.empty();
    case Kind::List:
    case Kind::Tuple: return v.gen || !v.list->empty();
    case Kind::Dict: return !v.dict->items.empty();
    default: return true;
  }
}

bool equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind == Kind::Float || b.kind == Kind::Float) return a.as_double() == b.as_double();
    return (a.kind == Kind::Bool ? int64_t(a.b) : a.i) == (b.kind == Kind::Bool ? int64_t(b.b) : b.i);
  }
  if (a.kind != b.kind || a.gen != b.gen) return false;
  if (a.gen) return a.list == b.list;
  switch (a.kind) {
    case Kind::Undefined:
    case Kind::None: return true;
    case Kind::String: return a.s == b.s;
    case Kind::List:
    case Kind::Tuple: {
      if (a.list->size() != b.list->size()) return false;
      for (size_t k = 0; k < a.list->size(); ++k)
        if (!equal((*a.list)[k], (*b.list)[k])) return false;
      return true;
    }
    case Kind::Dict: {
      if (a.dict->items.size() != b.dict->items.size()) return false;
      for (const auto& [k, v] : a.dict->items) {
        const Value* o = b.dict->find(k);
        if (!o || !equal(v, *o)) return false;
      }
      return true;
    }
    case Kind::Namespace: return a.dict == b.dict;
    case Kind::Func: return a.func == b.func;
    default: return false;
  }
}

int compare(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind != Kind::Float && b.kind != Kind::Float) {
      int64_t x = a.kind == Kind::Bool ? a.b : a.i, y = b.kind == Kind::Bool ? b.b : b.i;
      return x < y ? -1 : x > y;
    }
    double x = a.as_double(), y = b.as_double();
    return x < y ? -1 : x > y;
  }
  if (a.is_string() && b.is_string()) return a.s < b.s ? -1 : a.s > b.s;  // UTF-8 order = code point order
  if (a.is_list() && a.kind == b.kind) {
    for (size_t k = 0; k < a.list->size() && k < b.list->size(); ++k)
      if (!equal((*a.list)[k], (*b.list)[k])) return compare((*a.list)[k], (*b.list)[k]);
    return a.list->size() < b.list->size() ? -1 : a.list->size() > b.list->size();
  }
  if (a.is_undefined()) undefined_error(a);
  if (b.is_undefined()) undefined_error(b);
  throw RenderError(std::string("cannot order a '") + type_name(a) + "' and a '" + type_name(b) + "'");
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // [-]d[.ddd]e[+-]XX
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t e = sci.find('e');
  int exp = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // drop '.'
  std::string out;
  if (exp >= -5 + 1 && exp < 16) {  // Python repr: fixed notation for 1e-4 <= |d| < 1e16
    if (exp < 0) {
      out = "0." + std::string(size_t(-exp - 1), '0') + digits;
    } else if (size_t(exp) + 1 >= digits.size()) {
      out = digits + std::string(size_t(exp) + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, size_t(exp) + 1) + "." + digits.substr(size_t(exp) + 1);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  }
  return neg ? "-" + out : out;
}

namespace {
std::string str_repr(const std::string& s) {
  const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (char32_t c : decode(s)) {
    char buf[16];
    if (c == '\\') out += "\\\\";
    else if (c == char32_t(q)) out += std::string("\\") + q;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c)), out += buf;
    else out += encode(std::u32string(1, c));
  }
  return out + q;
}
}  // namespace

std::string repr(const Value& v) {
  switch (v.kind) {
    case Kind::String: return str_repr(v.s);
    case Kind::Undefined: return "Undefined";
    default: break;
  }
  if (v.gen) return "<generator object>";
  if (v.is_list()) {
    std::string out = v.kind == Kind::Tuple ? "(" : "[";
    for (size_t k = 0; k < v.list->size(); ++k) out += (k ? ", " : "") + repr((*v.list)[k]);
    if (v.kind == Kind::Tuple && v.list->size() == 1) out += ",";
    return out + (v.kind == Kind::Tuple ? ")" : "]");
  }
  if (v.kind == Kind::Dict) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, x] : v.dict->items) out += (first ? "" : ", ") + repr(k) + ": " + repr(x), first = false;
    return out + "}";
  }
  return to_str(v);
}

std::string to_str(const Value& v) {
  switch (v.kind) {
    case Kind::Undefined: return "";
    case Kind::None: return "None";
    case Kind::Bool: return v.b ? "True" : "False";
    case Kind::Int: return std::to_string(v.i);
    case Kind::Float: return float_repr(v.f);
    case Kind::String: return v.s;
    case Kind::Namespace: return "<Namespace>";
    case Kind::Func: return "<function " + v.s + ">";
    default: return repr(v);
  }
}

std::u32string decode(const std::string& s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t k = 0; k < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[k]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || k + n > s.size()) {
      out += U'\uFFFD', ++k;
      continue;
    }
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = true;
    for (size_t j = 1; j < n; ++j) {
      unsigned char d = static_cast<unsigned char>(s[k + j]);
      if ((d >> 6) != 2) ok = false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (!ok) {
      out += U'\uFFFD', ++k;
      continue;
    }
    out += cp, k += n;
  }
  return out;
}

std::string encode(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c < 0x80) out += char(c);
    else if (c < 0x800) out += char(0xC0 | (c >> 6)), out += char(0x80 | (c & 0x3F));
    else if (c < 0x10000)
      out += char(0xE0 | (c >> 12)), out += char(0x80 | ((c >> 6) & 0x3F)), out += char(0x80 | (c & 0x3F));
    else
      out += char(0xF0 | (c >> 18)), out += char(0x80 | ((c >> 12) & 0x3F)), out += char(0x80 | ((c >> 6) & 0x3F)),
          out += char(0x80 | (c & 0x3F));
  }
  return out;
}

size_t cp_length(const std::string& s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c < 0x80;
  return ascii ? s.size() : decode(s).size();
}

bool parse_int64(const std::string& digits, int64_t* out) {
  if (digits.empty() || digits.size() > 19) return false;
  unsigned __int128 v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + unsigned(c - '0');
  }
  if (v > INT64_MAX) return false;
  *out = int64_t(v);
  return true;
}

bool is_py_space(char32_t c) {
  return (c >= 9 && c <= 13) || c == ' ' || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

}  // namespace wgrt::text::jinja
