// Attribute and item access as jinja2's ImmutableSandboxedEnvironment does it: `a.b` tries the Python
// attribute (a method) first and then the item, `a[b]` the other way round; methods that would change a
// list or dict (append, pop, update, ...) are unsafe and calling them is an error. Also slicing and the
// str/dict/list methods chat templates call.
#include <algorithm>

#include "text/jinja/eval.h"
#include "text/jinja/strings.h"

namespace wgrt::text::jinja {
namespace {

int64_t int_arg(const Value* v, int64_t dflt, const char* what) {
  if (!v || v->is_none()) return dflt;
  if (v->kind == Kind::Int) return v->i;
  if (v->kind == Kind::Bool) return v->b;
  throw RenderError(std::string(what) + " must be an integer, not '" + type_name(*v) + "'");
}

std::string str_arg(const Value* v, const char* what) {
  if (!v || !v->is_string()) throw RenderError(std::string(what) + " must be a string");
  return v->s;
}

Value list_of(const std::vector<std::string>& parts) {
  List l;
  for (const auto& p : parts) l.push_back(Value::str(p));
  return Value::make_list(std::move(l));
}

bool starts_or_ends(const std::string& s, const Value& affix, bool start) {
  auto one = [&](const Value& a) {
    if (!a.is_string()) throw RenderError("startswith/endswith take a string or a tuple of strings");
    if (a.s.size() > s.size()) return false;
    return start ? s.compare(0, a.s.size(), a.s) == 0 : s.compare(s.size() - a.s.size(), a.s.size(), a.s) == 0;
  };
  if (affix.is_list()) return std::any_of(affix.list->begin(), affix.list->end(), one);
  return one(affix);
}

Value method(const Value& self, const std::string& name, std::function<Value(const Value&, Args&)> f) {
  return Value::function(name, [self, f](Args& a) { return f(self, a); });
}

Value unsafe(const Value& obj, const std::string& name) {
  Value u = Value::undefined("access to attribute '" + name + "' of '" + type_name(obj) + "' object is unsafe");
  u.safe_hint = true;
  return u;
}

Value str_method(const Value& obj, const std::string& n) {
  auto m = [&](auto f) { return method(obj, n, f); };
  if (n == "startswith" || n == "endswith")
    return m([start = n == "startswith"](const Value& s, Args& a) {
      if (a.pos.size() != 1) throw RenderError("startswith/endswith with start/end positions are not supported");
      return Value::boolean(starts_or_ends(s.s, a.pos[0], start));
    });
  if (n == "strip" || n == "lstrip" || n == "rstrip")
    return m([w = n[0] == 's' ? 'b' : n[0]](const Value& s, Args& a) {
      const Value* c = a.get(0, "chars");
      return Value::str(py_strip(s.s, c ? *c : Value::none(), w));
    });
  if (n == "split" || n == "rsplit")
    return m([right = n == "rsplit"](const Value& s, Args& a) {
      const Value* sep = a.get(0, "sep");
      return list_of(py_split(s.s, sep ? *sep : Value::none(), int_arg(a.get(1, "maxsplit"), -1, "maxsplit"), right));
    });
  if (n == "splitlines") return m([](const Value& s, Args&) { return list_of(py_splitlines(s.s)); });
  if (n == "upper") return m([](const Value& s, Args&) { return Value::str(py_upper(s.s)); });
  if (n == "lower") return m([](const Value& s, Args&) { return Value::str(py_lower(s.s)); });
  if (n == "title") return m([](const Value& s, Args&) { return Value::str(py_title(s.s)); });
  if (n == "capitalize") return m([](const Value& s, Args&) { return Value::str(py_capitalize(s.s)); });
  if (n == "replace")
    return m([](const Value& s, Args& a) {
      return Value::str(py_replace(s.s, str_arg(a.get(0, "old"), "replace's old"), str_arg(a.get(1, "new"), "replace's new"),
                                   int_arg(a.get(2, "count"), -1, "count")));
    });
  if (n == "find" || n == "rfind" || n == "index" || n == "rindex" || n == "count")
    return m([n](const Value& s, Args& a) {
      if (a.pos.size() != 1) throw RenderError(n + " with start/end positions is not supported");
      const std::string sub = str_arg(a.get(0, "sub"), "the substring");
      if (n == "count") {
        if (sub.empty()) return Value::integer(int64_t(cp_length(s.s)) + 1);
        int64_t c = 0;
        for (size_t k = s.s.find(sub); k != std::string::npos; k = s.s.find(sub, k + sub.size())) ++c;
        return Value::integer(c);
      }
      size_t f = n[0] == 'r' ? s.s.rfind(sub) : s.s.find(sub);
      if (f == std::string::npos) {
        if (n.find("index") != std::string::npos) throw RenderError("substring not found");
        return Value::integer(-1);
      }
      return Value::integer(int64_t(cp_length(s.s.substr(0, f))));
    });
  if (n == "join")
    return m([](const Value& s, Args& a) {
      if (a.pos.size() != 1) throw RenderError("str.join takes one argument");
      std::string out;
      bool first = true;
      for (const Value& x : iterate(a.pos[0])) {
        if (!x.is_string()) throw RenderError(std::string("str.join: expected str, found ") + type_name(x));
        out += (first ? "" : s.s) + x.s, first = false;
      }
      return Value::str(std::move(out));
    });
  if (n == "format") return m([](const Value& s, Args& a) { return Value::str(py_format(s.s, a)); });
  if (n == "isdigit" || n == "isspace" || n == "isalpha" || n == "isalnum" || n == "isupper" || n == "islower")
    return m([n](const Value& s, Args&) {
      std::u32string u = decode(s.s);
      if (u.empty()) return Value::boolean(false);
      if (n == "isupper" || n == "islower") {
        bool any = false;
        for (char32_t c : u) {
          std::string one = encode(std::u32string(1, c));
          bool is_up = py_lower(one) != one, is_low = py_upper(one) != one;
          if ((n == "isupper" && is_low) || (n == "islower" && is_up)) return Value::boolean(false);
          any = any || is_up || is_low;
        }
        return Value::boolean(any);
      }
      for (char32_t c : u) {
        bool d = c >= '0' && c <= '9', al = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool ok = n == "isdigit" ? d : n == "isspace" ? is_py_space(c) : n == "isalpha" ? al : (al || d);
        if (!ok) return Value::boolean(false);
      }
      return Value::boolean(true);
    });
  return Value();
}

Value dict_method(const Value& obj, const std::string& n) {
  auto m = [&](auto f) { return method(obj, n, f); };
  if (n == "get")
    return m([](const Value& d, Args& a) {
      const Value* k = a.get(0, "key");
      if (!k) throw RenderError("dict.get needs a key");
      const Value* v = d.dict->find(*k);
      const Value* dflt = a.get(1, "default");
      return v ? *v : dflt ? *dflt : Value::none();
    });
  if (n == "items" || n == "keys" || n == "values")
    return m([n](const Value& d, Args&) {
      List l;
      for (const auto& [k, v] : d.dict->items)
        l.push_back(n == "items" ? Value::make_list({k, v}, true) : n == "keys" ? k : v);
      return Value::make_list(std::move(l));
    });
  if (n == "copy")
    return m([](const Value& d, Args&) {
      Value c = Value::make_dict();
      c.dict->items = d.dict->items;
      return c;
    });
  if (n == "pop" || n == "popitem" || n == "setdefault" || n == "update" || n == "clear") return unsafe(obj, n);
  return Value();  // not a method
}

Value list_method(const Value& obj, const std::string& n) {
  if (n == "index" || n == "count")
    return method(obj, n, [n](const Value& l, Args& a) {
      if (a.pos.size() != 1) throw RenderError("list." + n + " takes one argument");
      int64_t c = 0;
      for (size_t k = 0; k < l.list->size(); ++k)
        if (equal((*l.list)[k], a.pos[0])) {
          if (n == "index") return Value::integer(int64_t(k));
          ++c;
        }
      if (n == "index") throw RenderError("list.index(x): x not in list");
      return Value::integer(c);
    });
  if (obj.kind == Kind::List && (n == "append" || n == "extend" || n == "insert" || n == "pop" || n == "remove" ||
                                 n == "reverse" || n == "sort" || n == "clear"))
    return unsafe(obj, n);
  return Value();
}

// Python attribute lookup only (no item fallback); Kind::Undefined with empty name when there is none.
Value attribute(const Value& obj, const std::string& name) {
  if (obj.gen) return Value();  // a generator has no list methods
  switch (obj.kind) {
    case Kind::String: return str_method(obj, name);
    case Kind::Dict: return dict_method(obj, name);
    case Kind::List:
    case Kind::Tuple: return list_method(obj, name);
    case Kind::Namespace: {
      const Value* v = obj.dict->find(name);
      return v ? *v : Value();
    }
    default: return Value();
  }
}

bool found(const Value& v) { return !(v.kind == Kind::Undefined && v.s.empty() && !v.safe_hint); }

}  // namespace

Value get_attr(const Value& obj, const std::string& name) {
  if (obj.is_undefined()) undefined_error(obj);
  Value a = attribute(obj, name);
  if (found(a)) return a;
  if (obj.kind == Kind::Dict)
    if (const Value* v = obj.dict->find(name)) return *v;
  return Value::undefined(name);
}

Value get_item(const Value& obj, const Value& key) {
  if (obj.is_undefined()) undefined_error(obj);
  if (obj.kind == Kind::Dict) {
    if (const Value* v = obj.dict->find(key)) return *v;
  } else if (((obj.is_list() && !obj.gen) || obj.is_string()) && (key.kind == Kind::Int || key.kind == Kind::Bool)) {
    int64_t i = key.kind == Kind::Bool ? key.b : key.i;
    if (obj.is_list()) {
      const int64_t n = int64_t(obj.list->size());
      if (i < 0) i += n;
      if (i >= 0 && i < n) return (*obj.list)[size_t(i)];
    } else {
      std::u32string u = decode(obj.s);
      const int64_t n = int64_t(u.size());
      if (i < 0) i += n;
      if (i >= 0 && i < n) return Value::str(encode(u.substr(size_t(i), 1)));
    }
    return Value::undefined(to_str(key));
  }
  if (key.is_string()) {
    Value a = attribute(obj, key.s);
    if (found(a)) return a;
  }
  return Value::undefined(to_str(key));
}

Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step) {
  if (obj.is_undefined()) undefined_error(obj);
  const int64_t st = int_arg(&step, 1, "slice step");
  if (st == 0) throw RenderError("slice step cannot be zero");
  std::u32string u;
  const bool is_str = obj.is_string();
  if (is_str) u = decode(obj.s);
  // jinja2 compiles slices to a plain Python subscript (not the sandbox's getitem): other types raise.
  else if (!obj.is_list() || obj.gen) throw RenderError(std::string("a '") + (obj.gen ? "generator" : type_name(obj)) + "' value cannot be sliced");
  const int64_t n = is_str ? int64_t(u.size()) : int64_t(obj.list->size());
  auto clamp = [&](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t x = int_arg(&v, 0, "slice index");
    if (x < 0) x += n;
    if (st > 0) return std::clamp<int64_t>(x, 0, n);
    return std::clamp<int64_t>(x, -1, n - 1);
  };
  const int64_t b = clamp(start, st > 0 ? 0 : n - 1), e = clamp(stop, st > 0 ? n : -1);
  std::u32string su;
  List l;
  for (int64_t k = b; st > 0 ? k < e : k > e; k += st) {
    if (is_str) su += u[size_t(k)];
    else l.push_back((*obj.list)[size_t(k)]);
  }
  return is_str ? Value::str(encode(su)) : Value::make_list(std::move(l), obj.kind == Kind::Tuple);
}

List iterate(const Value& v) {
  if (v.gen && !v.s.empty()) throw RenderError(v.s);  // a generator whose body fails when consumed
  switch (v.kind) {
    case Kind::Undefined: return {};
    case Kind::List:
    case Kind::Tuple: return *v.list;
    case Kind::Dict: {
      List l;
      for (const auto& [k, x] : v.dict->items) l.push_back(k);
      return l;
    }
    case Kind::String: {
      List l;
      for (char32_t c : decode(v.s)) l.push_back(Value::str(encode(std::u32string(1, c))));
      return l;
    }
    default: throw RenderError(std::string("'") + type_name(v) + "' object is not iterable");
  }
}

}  // namespace wgrt::text::jinja
