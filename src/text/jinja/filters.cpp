// jinja2's built-in filters that chat templates use, with jinja2 3.1's argument names and defaults, plus
// Hugging Face's tojson (json.dumps with ensure_ascii=False: no HTML escaping).
#include <algorithm>
#include <cmath>
#include <map>

#include "text/jinja/eval.h"
#include "text/jinja/parser.h"
#include "text/jinja/strings.h"

namespace wgrt::text::jinja {
namespace {

struct Signature {
  std::vector<const char*> params;  // after the value, in Python's order
  size_t required = 0;              // how many of them have no default
  bool varargs = false;             // *args, **kwargs (checked by the filter itself)
};

// jinja2 3.1's filter signatures (HF's tojson for tojson). A call outside them is a TypeError in jinja2.
const std::map<std::string, Signature>& signatures() {
  static const std::map<std::string, Signature> k = {
      {"abs", {}}, {"attr", {{"name"}, 1}}, {"batch", {{"linecount", "fill_with"}, 1}}, {"capitalize", {}},
      {"count", {}}, {"length", {}}, {"d", {{"default_value", "boolean"}}}, {"default", {{"default_value", "boolean"}}},
      {"dictsort", {{"case_sensitive", "by", "reverse"}}}, {"e", {}}, {"escape", {}}, {"first", {}}, {"last", {}},
      {"float", {{"default"}}}, {"indent", {{"width", "first", "blank"}}}, {"int", {{"default", "base"}}},
      {"items", {}}, {"join", {{"d", "attribute"}}}, {"list", {}}, {"lower", {}}, {"upper", {}}, {"title", {}},
      {"map", {{}, 0, true}}, {"max", {{"case_sensitive", "attribute"}}}, {"min", {{"case_sensitive", "attribute"}}},
      {"reject", {{}, 0, true}}, {"select", {{}, 0, true}}, {"rejectattr", {{}, 0, true}}, {"selectattr", {{}, 0, true}},
      {"replace", {{"old", "new", "count"}, 2}}, {"reverse", {}}, {"round", {{"precision", "method"}}}, {"safe", {}},
      {"sort", {{"reverse", "case_sensitive", "attribute"}}}, {"string", {}}, {"sum", {{"attribute", "start"}}},
      {"tojson", {{"ensure_ascii", "indent", "separators", "sort_keys"}}}, {"trim", {{"chars"}}},
      {"unique", {{"case_sensitive", "attribute"}}}, {"wordcount", {}}};
  return k;
}

void check_signature(const std::string& n, const Signature& sig, const Args& a) {
  if (sig.varargs) return;
  if (a.pos.size() > sig.params.size())
    throw RenderError("filter '" + n + "' takes at most " + std::to_string(sig.params.size()) + " arguments, got " +
                      std::to_string(a.pos.size()));
  for (const auto& [k, v] : a.kw) {
    size_t idx = 0;
    while (idx < sig.params.size() && k != sig.params[idx]) ++idx;
    if (idx == sig.params.size()) throw RenderError("filter '" + n + "' got an unexpected keyword argument '" + k + "'");
    if (idx < a.pos.size()) throw RenderError("filter '" + n + "' got multiple values for argument '" + k + "'");
  }
  for (size_t idx = a.pos.size(); idx < sig.required; ++idx) {
    bool given = false;
    for (const auto& [k, v] : a.kw) given = given || k == sig.params[idx];
    if (!given) throw RenderError("filter '" + n + "' is missing its argument '" + std::string(sig.params[idx]) + "'");
  }
}

bool flag(const Args& a, size_t idx, const char* name, bool dflt) {
  const Value* v = a.get(idx, name);
  return v ? truthy(*v) : dflt;
}
const Value* opt(const Args& a, size_t idx, const char* name) {
  const Value* v = a.get(idx, name);
  return v && !v->is_none() ? v : nullptr;
}

// jinja2's make_attrgetter: "a.b.0" looked up with getitem, step by step.
Value attr_path(const Value& item, const Value& path) {
  if (path.kind == Kind::Int) return get_item(item, path);
  Value cur = item;
  const std::string p = to_str(path);
  size_t b = 0;
  for (;;) {
    size_t e = p.find('.', b);
    std::string part = p.substr(b, e == std::string::npos ? std::string::npos : e - b);
    int64_t idx = 0;
    cur = get_item(cur, parse_int64(part, &idx) ? Value::integer(idx) : Value::str(part));
    if (e == std::string::npos) return cur;
    b = e + 1;
  }
}

Value case_key(const Value& v, bool case_sensitive) {
  return !case_sensitive && v.is_string() ? Value::str(py_lower(v.s)) : v;
}

// select / reject / selectattr / rejectattr
Value select(const Value& seq, Args& a, bool by_attr, bool keep) {
  List out;
  if (!truthy(seq)) return Value::generator({});  // jinja2: `if seq:` before iterating
  size_t first = 0;
  Value path;
  if (by_attr) {
    if (a.pos.empty()) throw RenderError("selectattr/rejectattr need an attribute name");
    path = a.pos[0], first = 1;
  }
  std::string test;
  Args targs;
  if (a.pos.size() > first) {
    if (!a.pos[first].is_string()) throw RenderError("the test name must be a string");
    test = a.pos[first].s;
    if (!known_test(test)) throw RenderError("no test named '" + test + "'");
    targs.pos.assign(a.pos.begin() + std::ptrdiff_t(first + 1), a.pos.end());
    targs.kw = a.kw;
  }
  for (const Value& item : iterate(seq)) {
    Value x = by_attr ? attr_path(item, path) : item;
    bool ok = test.empty() ? truthy(x) : apply_test(test, x, targs);
    if (ok == keep) out.push_back(item);
  }
  return Value::generator(std::move(out));
}

Value do_map(const Value& seq, Args& a) {
  List out;
  if (!truthy(seq)) return Value::generator({});  // jinja2: `if value:` before iterating
  const Value* attr = a.get(99, "attribute");
  if (attr) {
    const Value* dflt = a.get(99, "default");
    for (const auto& [k, x] : a.kw)
      if (k != "attribute" && k != "default") throw RenderError("map: unexpected keyword argument '" + k + "'");
    if (!a.pos.empty()) throw RenderError("map with attribute= takes no positional arguments");
    for (const Value& item : iterate(seq)) {
      Value x = attr_path(item, *attr);
      out.push_back(x.is_undefined() && dflt ? *dflt : x);
    }
    return Value::generator(std::move(out));
  }
  if (a.pos.empty() || !a.pos[0].is_string()) throw RenderError("map needs a filter name or attribute=");
  const std::string f = a.pos[0].s;
  if (!known_filter(f)) throw RenderError("no filter named '" + f + "'");
  Args fargs;
  fargs.pos.assign(a.pos.begin() + 1, a.pos.end());
  fargs.kw = a.kw;
  for (const Value& item : iterate(seq)) {
    Args copy = fargs;
    out.push_back(apply_filter(f, item, copy));
  }
  return Value::generator(std::move(out));
}

// jinja2's do_sort: the key of an item is the list of its attributes ("a,b" sorts by a, then b); lists
// compare element by element, equal elements (Undefined == Undefined) never reach '<'.
Value sorted(const Value& v, const Args& a) {
  const bool reverse = flag(a, 0, "reverse", false), cs = flag(a, 1, "case_sensitive", false);
  const Value* attr = opt(a, 2, "attribute");
  std::vector<Value> paths;
  if (attr && attr->is_string()) {
    for (size_t b = 0;;) {
      size_t e = attr->s.find(',', b);
      paths.push_back(Value::str(attr->s.substr(b, e == std::string::npos ? std::string::npos : e - b)));
      if (e == std::string::npos) break;
      b = e + 1;
    }
  } else if (attr) {
    paths.push_back(*attr);
  }
  List l = iterate(v);
  std::vector<std::pair<Value, Value>> keyed;  // (key list, item)
  for (const Value& x : l) {
    List key;
    if (paths.empty()) key.push_back(case_key(x, cs));
    for (const Value& p : paths) key.push_back(case_key(attr_path(x, p), cs));
    keyed.emplace_back(Value::make_list(std::move(key)), x);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? compare(y.first, x.first) < 0 : compare(x.first, y.first) < 0;
  });
  List out;
  for (auto& [k, x] : keyed) out.push_back(std::move(x));
  return Value::make_list(std::move(out));
}

std::string indent(const std::string& s0, const Value& width, bool first, bool blank) {
  const std::string ind = width.is_string() ? width.s : std::string(size_t(std::max<int64_t>(0, width.i)), ' ');
  std::vector<std::string> lines = py_splitlines(s0 + "\n");
  std::string rv;
  if (blank) {
    for (size_t k = 0; k < lines.size(); ++k) rv += (k ? "\n" + ind : "") + lines[k];
  } else if (!lines.empty()) {
    rv = lines[0];
    for (size_t k = 1; k < lines.size(); ++k) rv += "\n" + (lines[k].empty() ? "" : ind + lines[k]);
  }
  return first ? ind + rv : rv;
}

Value to_number(const Value& v, bool want_float, const Value& dflt, int base) {
  if (v.kind == Kind::Int || v.kind == Kind::Bool) return want_float ? Value::real(v.as_double()) : Value::integer(v.kind == Kind::Bool ? v.b : v.i);
  if (v.kind == Kind::Float) {
    if (want_float) return v;
    if (!std::isfinite(v.f)) return dflt;
    return Value::integer(int64_t(v.f));
  }
  if (v.is_string()) {
    std::string s = py_strip(v.s, Value::none(), 'b');
    std::string t;
    for (char c : s) if (c != '_') t += c;
    if (!t.empty()) {
      char* end = nullptr;
      errno = 0;
      if (!want_float) {
        long long x = std::strtoll(t.c_str(), &end, base);
        if (*end == 0 && errno == 0) return Value::integer(x);
      }
      double d = std::strtod(t.c_str(), &end);
      if (*end == 0) return want_float ? Value::real(d) : std::isfinite(d) ? Value::integer(int64_t(d)) : dflt;
    }
  }
  return dflt;
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&#34;" : c == '\'' ? "&#39;" : std::string(1, c);
  return out;
}

Value generator_filter(const std::string& n, const Value& v, Args& a) {
  if (n == "items") {
    if (v.is_undefined()) return Value::generator({});
    if (v.kind != Kind::Dict) throw RenderError("can only get item pairs from a mapping");
    Args none;
    return Value::generator(*(*get_attr(v, "items").func)(none).list);
  }
  if (n == "select" || n == "reject") return select(v, a, false, n == "select");
  if (n == "selectattr" || n == "rejectattr") return select(v, a, true, n == "selectattr");
  if (n == "map") return do_map(v, a);
  if (n == "unique") {
    const bool cs = flag(a, 0, "case_sensitive", false);
    const Value* attr = opt(a, 1, "attribute");
    List seen, out;
    for (const Value& x : iterate(v)) {
      Value kx = case_key(attr ? attr_path(x, *attr) : x, cs);
      if (std::none_of(seen.begin(), seen.end(), [&](const Value& s) { return equal(s, kx); }))
        seen.push_back(kx), out.push_back(x);
    }
    return Value::generator(std::move(out));
  }
  if (n == "batch") {
    const Value* cnt = a.get(0, "linecount");
    if (!cnt || cnt->kind != Kind::Int || cnt->i <= 0) throw RenderError("batch needs a positive count");
    const Value* fill = opt(a, 1, "fill_with");
    List out, cur;
    for (const Value& x : iterate(v)) {
      cur.push_back(x);
      if (int64_t(cur.size()) == cnt->i) out.push_back(Value::make_list(std::move(cur))), cur.clear();
    }
    if (!cur.empty()) {
      while (fill && int64_t(cur.size()) < cnt->i) cur.push_back(*fill);
      out.push_back(Value::make_list(std::move(cur)));
    }
    return Value::generator(std::move(out));
  }
  throw RenderError("no filter named '" + n + "'");
}

bool known_filter(const std::string& name) { return signatures().count(name) != 0; }

Value apply_filter(const std::string& n, const Value& v, Args& a) {
  const auto sig = signatures().find(n);
  if (sig == signatures().end()) throw RenderError("no filter named '" + n + "'");
  check_signature(n, sig->second, a);
  if (v.is_undefined() && (n == "indent" || n == "int" || n == "float")) undefined_error(v);
  if (n == "tojson") {  // HF: tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)
    const Value* indent_v = a.get(1, "indent");
    const Value* sep = a.get(2, "separators");
    return Value::str(to_json(v, flag(a, 0, "ensure_ascii", false), indent_v ? *indent_v : Value::none(),
                              sep ? *sep : Value::none(), flag(a, 3, "sort_keys", false)));
  }
  // jinja2 runs these filters as generators: their errors surface only when the result is consumed.
  if (n == "select" || n == "reject" || n == "selectattr" || n == "rejectattr" || n == "map" || n == "items" ||
      n == "unique" || n == "batch") {
    try {
      return generator_filter(n, v, a);
    } catch (const RenderError& e) {
      Value g = Value::generator({});
      g.s = e.what();
      return g;
    }
  }
  if (n == "length" || n == "count") {  // jinja2 uses Python's len(): a generator has none
    if (v.gen) throw RenderError("object of type 'generator' has no len()");
    if (v.is_string()) return Value::integer(int64_t(cp_length(v.s)));
    if (v.is_list()) return Value::integer(int64_t(v.list->size()));
    if (v.kind == Kind::Dict) return Value::integer(int64_t(v.dict->items.size()));
    if (v.is_undefined()) return Value::integer(0);
    throw RenderError(std::string("object of type '") + type_name(v) + "' has no len()");
  }
  if (n == "default" || n == "d") {
    const Value* dv = a.get(0, "default_value");
    const bool boolean = flag(a, 1, "boolean", false);
    if (v.is_undefined() || (boolean && !truthy(v))) return dv ? *dv : Value::str("");
    return v;
  }
  if (n == "trim") {
    const Value* c = a.get(0, "chars");
    return Value::str(py_strip(to_str(v), c ? *c : Value::none(), 'b'));
  }
  if (n == "string") return v.is_string() ? v : Value::str(to_str(v));
  if (n == "safe") {
    Value r = v.is_string() ? v : Value::str(to_str(v));
    r.markup = true;
    return r;
  }
  if (n == "upper") return Value::str(py_upper(to_str(v)));
  if (n == "lower") return Value::str(py_lower(to_str(v)));
  if (n == "title") return Value::str(py_title(to_str(v)));
  if (n == "capitalize") return Value::str(py_capitalize(to_str(v)));
  if (n == "e" || n == "escape") {
    Value r = v.markup ? v : Value::str(html_escape(to_str(v)));
    r.markup = true;
    return r;
  }
  if (n == "replace") {
    const Value *o = a.get(0, "old"), *r = a.get(1, "new");
    if (!o || !r) throw RenderError("replace needs the old and the new text");
    const Value* c = opt(a, 2, "count");
    return Value::str(py_replace(to_str(v), to_str(*o), to_str(*r), c ? c->i : -1));
  }
  if (n == "join") {
    const Value* d = a.get(0, "d");
    const Value* attr = opt(a, 1, "attribute");
    std::string out, sep = d ? to_str(*d) : "";
    bool first = true;
    for (const Value& x : iterate(v)) out += (first ? "" : sep) + to_str(attr ? attr_path(x, *attr) : x), first = false;
    return Value::str(std::move(out));
  }
  if (n == "dictsort") {
    if (v.kind != Kind::Dict) throw RenderError("dictsort needs a mapping");
    const bool cs = flag(a, 0, "case_sensitive", false), rev = flag(a, 2, "reverse", false);
    const Value* by = a.get(1, "by");
    const int pos = by && to_str(*by) == "value" ? 1 : 0;
    if (by && pos == 0 && to_str(*by) != "key") throw RenderError("dictsort: 'by' must be 'key' or 'value'");
    List l;
    for (const auto& [k, x] : v.dict->items) l.push_back(Value::make_list({k, x}, true));
    std::stable_sort(l.begin(), l.end(), [&](const Value& x, const Value& y) {
      int c = compare(case_key((*x.list)[size_t(pos)], cs), case_key((*y.list)[size_t(pos)], cs));
      return rev ? c > 0 : c < 0;
    });
    return Value::make_list(std::move(l));
  }
  if (n == "list") return Value::make_list(iterate(v));
  if (n == "last" && v.gen) throw RenderError("'generator' object is not reversible");
  if (n == "first" || n == "last") {
    List l = iterate(v);
    if (l.empty()) return Value::undefined(n);
    return n == "first" ? l.front() : l.back();
  }
  if (n == "reverse") {
    if (v.is_string()) {
      std::u32string u = decode(v.s);
      std::reverse(u.begin(), u.end());
      return Value::str(encode(u));
    }
    List l = iterate(v);
    std::reverse(l.begin(), l.end());
    return Value::generator(std::move(l));
  }
  if (n == "sort") return sorted(v, a);
  if (n == "min" || n == "max") {
    const bool cs = flag(a, 0, "case_sensitive", false);
    const Value* attr = opt(a, 1, "attribute");
    auto key = [&](const Value& x) { return case_key(attr ? attr_path(x, *attr) : x, cs); };
    List l = iterate(v);
    if (l.empty()) return Value::undefined(n);
    Value best = l[0];
    for (const Value& x : l) {
      int c = compare(key(x), key(best));
      if (n == "min" ? c < 0 : c > 0) best = x;
    }
    return best;
  }
  if (n == "int" || n == "float") {
    const Value* d = a.get(0, "default");
    const Value* base = a.get(1, "base");
    return to_number(v, n == "float", d ? *d : (n == "int" ? Value::integer(0) : Value::real(0)),
                     base ? int(base->i) : 10);
  }
  if (n == "abs") {
    if (v.kind == Kind::Float) return Value::real(std::fabs(v.f));
    if (v.kind == Kind::Int) return Value::integer(v.i < 0 ? -v.i : v.i);
    if (v.kind == Kind::Bool) return Value::integer(v.b);
    throw RenderError(std::string("bad operand type for abs(): '") + type_name(v) + "'");
  }
  if (n == "round") {
    const Value* p = a.get(0, "precision");
    const Value* m = a.get(1, "method");
    const std::string method = m ? to_str(*m) : "common";
    const double scale = std::pow(10.0, p ? double(p->i) : 0.0);
    if (!v.is_number()) throw RenderError("round needs a number");
    const double x = v.as_double() * scale;
    double r = method == "ceil" ? std::ceil(x) : method == "floor" ? std::floor(x) : std::nearbyint(x);
    return Value::real(r / scale);
  }
  if (n == "sum") {
    const Value* attr = opt(a, 0, "attribute");
    const Value* start = a.get(1, "start");
    Value acc = start ? *start : Value::integer(0);
    for (const Value& x : iterate(v)) {
      Value y = attr ? attr_path(x, *attr) : x;
      if (!acc.is_number() || !y.is_number()) throw RenderError("sum needs numbers");
      acc = acc.kind == Kind::Float || y.kind == Kind::Float ? Value::real(acc.as_double() + y.as_double())
                                                              : Value::integer(acc.i + (y.kind == Kind::Bool ? y.b : y.i));
    }
    return acc;
  }
  if (n == "indent") {
    if (!v.is_string()) throw RenderError(std::string("indent needs a string, not '") + type_name(v) + "'");
    const Value* w = a.get(0, "width");
    return Value::str(indent(to_str(v), w ? *w : Value::integer(4), flag(a, 1, "first", false), flag(a, 2, "blank", false)));
  }
  if (n == "attr") {
    const Value* name = a.get(0, "name");
    if (!name) throw RenderError("attr needs a name");
    return get_attr(v, to_str(*name));
  }
  if (n == "wordcount") {
    int64_t c = 0;
    bool in = false;
    for (char32_t ch : decode(to_str(v))) {
      bool w = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch >= 0xC0;
      if (w && !in) ++c;
      in = w;
    }
    return Value::integer(c);
  }
  throw RenderError("no filter named '" + n + "'");
}

}  // namespace wgrt::text::jinja
