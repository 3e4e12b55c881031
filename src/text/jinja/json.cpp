// Python's json.dumps for interpreter values (HF's tojson filter): separators (', ', ': ') without indent and
// (',', ': ') with it, floats as repr(), NaN/Infinity, keys str/int/float/bool/None, tuples as arrays.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "text/jinja/eval.h"

namespace wgrt::text::jinja {
namespace {

struct Dumper {
  bool ascii;
  bool pretty;
  std::string indent, item_sep, key_sep;
  bool sort_keys;
  std::string out;
  int depth = 0;

  void string(const std::string& s) {
    out += '"';
    char buf[16];
    for (char32_t c : decode(s)) {
      switch (c) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
      }
      if (c < 0x20 || (ascii && c > 0x7e)) {
        if (c >= 0x10000) {
          const char32_t v = c - 0x10000;
          std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", unsigned(0xD800 + (v >> 10)), unsigned(0xDC00 + (v & 0x3FF)));
        } else {
          std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
        }
        out += buf;
      } else {
        out += encode(std::u32string(1, c));
      }
    }
    out += '"';
  }

  static std::string number(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
    return float_repr(d);
  }

  void newline() {
    out += '\n';
    for (int k = 0; k < depth; ++k) out += indent;
  }

  std::string key(const Value& k) {
    switch (k.kind) {
      case Kind::String: return k.s;
      case Kind::Int: return std::to_string(k.i);
      case Kind::Float: return number(k.f);
      case Kind::Bool: return k.b ? "true" : "false";
      case Kind::None: return "null";
      default: throw RenderError(std::string("tojson: keys must be str, int, float, bool or None, not ") + type_name(k));
    }
  }

  void value(const Value& v) {
    if (depth > 200) throw RenderError("tojson: value nested too deeply");
    switch (v.kind) {
      case Kind::None: out += "null"; return;
      case Kind::Bool: out += v.b ? "true" : "false"; return;
      case Kind::Int: out += std::to_string(v.i); return;
      case Kind::Float: out += number(v.f); return;
      case Kind::String: string(v.s); return;
      case Kind::List:
      case Kind::Tuple: {
        if (v.gen) throw RenderError("Object of type generator is not JSON serializable");
        if (v.list->empty()) {
          out += "[]";
          return;
        }
        out += '[';
        ++depth;
        for (size_t k = 0; k < v.list->size(); ++k) {
          if (k) out += item_sep;
          if (pretty) newline();
          value((*v.list)[k]);
        }
        --depth;
        if (pretty) newline();
        out += ']';
        return;
      }
      case Kind::Dict: {
        if (v.dict->items.empty()) {
          out += "{}";
          return;
        }
        auto items = v.dict->items;
        if (sort_keys)
          std::stable_sort(items.begin(), items.end(), [](const auto& x, const auto& y) { return compare(x.first, y.first) < 0; });
        out += '{';
        ++depth;
        bool first = true;
        for (const auto& [k, x] : items) {
          if (!first) out += item_sep;
          first = false;
          if (pretty) newline();
          string(key(k));
          out += key_sep;
          value(x);
        }
        --depth;
        if (pretty) newline();
        out += '}';
        return;
      }
      default: throw RenderError(std::string("Object of type ") + type_name(v) + " is not JSON serializable");
    }
  }
};

}  // namespace

std::string to_json(const Value& v, bool ensure_ascii, const Value& indent, const Value& separators, bool sort_keys) {
  Dumper d{ensure_ascii, !indent.is_none() && !indent.is_undefined(), "", ", ", ": ", sort_keys, "", 0};
  if (d.pretty) {
    if (indent.is_string()) d.indent = indent.s;
    else if (indent.kind == Kind::Int) d.indent = std::string(size_t(std::max<int64_t>(0, indent.i)), ' ');
    else throw RenderError("tojson: indent must be a number or a string");
    d.item_sep = ",";
  }
  if (!separators.is_none() && !separators.is_undefined()) {
    if (!separators.is_list() || separators.list->size() != 2 || !(*separators.list)[0].is_string() ||
        !(*separators.list)[1].is_string())
      throw RenderError("tojson: separators must be a pair of strings");
    d.item_sep = (*separators.list)[0].s;
    d.key_sep = (*separators.list)[1].s;
  }
  d.value(v);
  return std::move(d.out);
}

}  // namespace wgrt::text::jinja
