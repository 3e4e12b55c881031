// Statement execution and expression evaluation (see eval.h).
#include "text/jinja/eval.h"

#include <cmath>
#include <unordered_map>

namespace wgrt::text::jinja {
namespace {

struct Scope {
  std::unordered_map<std::string, Value> vars;
  std::shared_ptr<Scope> parent;
  const Value* find(const std::string& n) const {
    for (const Scope* s = this; s; s = s->parent.get()) {
      auto it = s->vars.find(n);
      if (it != s->vars.end()) return &it->second;
    }
    return nullptr;
  }
};
using ScopeP = std::shared_ptr<Scope>;
ScopeP child(const ScopeP& parent) {
  auto s = std::make_shared<Scope>();
  s->parent = parent;
  return s;
}

enum class Flow { Normal, Break, Continue };

int64_t checked(__int128 v) {
  if (v > INT64_MAX || v < INT64_MIN) throw RenderError("integer result out of the 64-bit range");
  return int64_t(v);
}
int64_t as_int(const Value& v) { return v.kind == Kind::Bool ? int64_t(v.b) : v.i; }

struct Renderer {
  const Limits& lim;
  uint64_t iterations = 0;
  int depth = 0;
  int line = 0;
  size_t total_out = 0;

  void emit(std::string& out, std::string_view s) {
    total_out += s.size();
    if (total_out > lim.max_output)
      throw RenderError("the output is larger than the " + std::to_string(lim.max_output >> 20) + " MiB bound");
    out += s;
  }

  struct Depth {
    Renderer& r;
    explicit Depth(Renderer& q) : r(q) {
      if (++r.depth > r.lim.max_call_depth)
        throw RenderError("recursion deeper than " + std::to_string(r.lim.max_call_depth) + " levels");
    }
    ~Depth() { --r.depth; }
  };

  // ---------- statements ----------
  Flow exec(const Body& body, const ScopeP& sc, std::string& out) {
    for (const auto& st : body) {
      Flow f = exec1(*st, sc, out);
      if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
  }

  Flow exec1(const Stmt& s, const ScopeP& sc, std::string& out) {
    line = s.line;
    switch (s.k) {
      case SK::Text: emit(out, s.text); return Flow::Normal;
      case SK::Print: {
        Value v = eval(*s.expr, sc);
        emit(out, to_str(v));
        return Flow::Normal;
      }
      case SK::If:
        for (const auto& [c, b] : s.branches) {
          line = c->line;
          if (truthy(eval(*c, sc))) return exec(b, sc, out);
        }
        return exec(s.else_body, sc, out);
      case SK::For: return exec_for(s, sc, out);
      case SK::Set: {
        Value v = eval(*s.cond, sc);
        if (s.expr) {
          Value ns = eval(*s.expr, sc);
          if (ns.kind != Kind::Namespace)
            throw RenderError("cannot assign attribute '" + s.text + "' on a '" + type_name(ns) +
                              "': only namespace() objects have settable attributes");
          ns.dict->set(Value::str(s.text), std::move(v));
        } else {
          assign(s.targets, std::move(v), *sc);
        }
        return Flow::Normal;
      }
      case SK::SetBlock: {
        std::string text;
        exec(s.body, child(sc), text);
        Value v = Value::str(std::move(text));
        if (s.filter) v = filter_chain(*s.filter, std::move(v), sc);
        sc->vars[s.targets[0]] = std::move(v);
        return Flow::Normal;
      }
      case SK::Macro: sc->vars[s.text] = make_macro(s, sc, Value()); return Flow::Normal;
      case SK::CallBlock: {
        Value caller = make_macro(s, sc, Value());
        caller.s = "caller";
        const Expr& call = *s.expr;
        Value fn = eval(*call.kids[0], sc);
        Args a = eval_args(call, sc);
        a.kw.emplace_back("caller", caller);
        emit(out, to_str(invoke(fn, a)));
        return Flow::Normal;
      }
      case SK::FilterBlock: {
        std::string text;
        exec(s.body, child(sc), text);
        emit(out, to_str(filter_chain(*s.filter, Value::str(std::move(text)), sc)));
        return Flow::Normal;
      }
      case SK::Scope: return exec(s.body, child(sc), out);
      case SK::Break: return Flow::Break;
      case SK::Continue: return Flow::Continue;
    }
    return Flow::Normal;
  }

  void assign(const std::vector<std::string>& targets, Value v, Scope& sc) {
    if (targets.size() == 1) {
      sc.vars[targets[0]] = std::move(v);
      return;
    }
    List items = v.is_list() ? *v.list : iterate(v);
    if (items.size() != targets.size())
      throw RenderError("cannot unpack " + std::to_string(items.size()) + " values into " +
                        std::to_string(targets.size()) + " names");
    for (size_t k = 0; k < targets.size(); ++k) sc.vars[targets[k]] = items[k];
  }

  Flow exec_for(const Stmt& s, const ScopeP& sc, std::string& out) {
    List items = iterate(eval(*s.expr, sc));
    if (s.cond) {  // the filter-if sees the loop variables, not `loop`
      List kept;
      for (auto& it : items) {
        auto fs = child(sc);
        assign(s.targets, it, *fs);
        if (truthy(eval(*s.cond, fs))) kept.push_back(std::move(it));
      }
      items = std::move(kept);
    }
    if (s.recursive) throw RenderError("recursive for loops are not supported");
    const int64_t n = int64_t(items.size());
    for (int64_t k = 0; k < n; ++k) {
      if (++iterations > lim.max_iterations)
        throw RenderError("more than " + std::to_string(lim.max_iterations) + " loop iterations");
      auto is = child(sc);
      assign(s.targets, items[size_t(k)], *is);
      Value loop = Value::make_dict();
      auto& d = *loop.dict;
      d.set(Value::str("index"), Value::integer(k + 1));
      d.set(Value::str("index0"), Value::integer(k));
      d.set(Value::str("revindex"), Value::integer(n - k));
      d.set(Value::str("revindex0"), Value::integer(n - k - 1));
      d.set(Value::str("first"), Value::boolean(k == 0));
      d.set(Value::str("last"), Value::boolean(k == n - 1));
      d.set(Value::str("length"), Value::integer(n));
      d.set(Value::str("depth"), Value::integer(1));
      d.set(Value::str("depth0"), Value::integer(0));
      d.set(Value::str("previtem"), k > 0 ? items[size_t(k - 1)] : Value::undefined("previtem"));
      d.set(Value::str("nextitem"), k + 1 < n ? items[size_t(k + 1)] : Value::undefined("nextitem"));
      d.set(Value::str("cycle"), Value::function("cycle", [k](Args& a) {
              if (a.pos.empty()) throw RenderError("loop.cycle() needs at least one value");
              return a.pos[size_t(k) % a.pos.size()];
            }));
      is->vars["loop"] = std::move(loop);
      Flow f = exec(s.body, is, out);
      if (f == Flow::Break) break;
    }
    if (n == 0) return exec(s.else_body, sc, out);
    return Flow::Normal;
  }

  // A macro (or a call block's caller) as a callable value. Its body runs in a child of the scope it was
  // defined in; missing arguments take their defaults (evaluated at call time) or are undefined.
  Value make_macro(const Stmt& s, const ScopeP& def_scope, Value) {
    const Stmt* st = &s;
    std::weak_ptr<Scope> weak = def_scope;  // the defining scope owns the macro: avoid a reference cycle
    ScopeP strong = s.k == SK::CallBlock ? def_scope : nullptr;
    return Value::function(s.text, [this, st, weak, strong](Args& a) {
      ScopeP parent = strong ? strong : weak.lock();
      Depth g(*this);
      auto ms = child(parent);
      const int saved = line;
      for (size_t k = 0; k < st->params.size(); ++k) {
        const Param& p = st->params[k];
        if (k < a.pos.size()) {
          ms->vars[p.name] = a.pos[k];
          continue;
        }
        bool found = false;
        for (auto& [n, v] : a.kw)
          if (n == p.name) ms->vars[p.name] = v, found = true;
        if (!found) ms->vars[p.name] = p.def ? eval(*p.def, ms) : Value::undefined(p.name);
      }
      List varargs;
      for (size_t k = st->params.size(); k < a.pos.size(); ++k) varargs.push_back(a.pos[k]);
      ms->vars["varargs"] = Value::make_list(std::move(varargs));
      Value kwargs = Value::make_dict();
      for (auto& [n, v] : a.kw) {
        bool is_param = n == "caller";
        for (const auto& p : st->params) is_param = is_param || p.name == n;
        if (n == "caller") ms->vars["caller"] = v;
        if (!is_param) kwargs.dict->set(Value::str(n), v);
      }
      ms->vars["kwargs"] = kwargs;
      std::string text;
      exec(st->body, ms, text);
      line = saved;
      return Value::str(std::move(text));
    });
  }

  Value invoke(const Value& fn, Args& a) {
    if (fn.kind == Kind::Undefined) {
      if (fn.safe_hint) undefined_error(fn);
      throw RenderError(fn.s.empty() ? "called an undefined value" : "'" + fn.s + "' is undefined");
    }
    if (fn.kind != Kind::Func) throw RenderError(std::string("a '") + type_name(fn) + "' value is not callable");
    return (*fn.func)(a);
  }

  Args eval_args(const Expr& e, const ScopeP& sc, size_t first = 1) {
    Args a;
    for (size_t k = first; k < e.kids.size(); ++k) a.pos.push_back(eval(*e.kids[k], sc));
    for (const auto& [n, x] : e.kwargs) a.kw.emplace_back(n, eval(*x, sc));
    return a;
  }

  Value filter_chain(const Expr& f, Value v, const ScopeP& sc) {
    if (f.kids[0]) v = filter_chain(*f.kids[0], std::move(v), sc);
    Args a = eval_args(f, sc);
    return apply_filter(f.name, v, a);
  }

  // ---------- expressions ----------
  Value eval(const Expr& e, const ScopeP& sc) {
    Depth g(*this);
    switch (e.k) {
      case EK::Literal: return e.lit;
      case EK::Name: {
        const Value* v = sc->find(e.name);
        return v ? *v : Value::undefined(e.name);
      }
      case EK::List:
      case EK::Tuple: {
        List l;
        for (const auto& k : e.kids) l.push_back(eval(*k, sc));
        return Value::make_list(std::move(l), e.k == EK::Tuple);
      }
      case EK::Dict: {
        Value d = Value::make_dict();
        for (size_t k = 0; k + 1 < e.kids.size(); k += 2) d.dict->set(eval(*e.kids[k], sc), eval(*e.kids[k + 1], sc));
        return d;
      }
      case EK::GetAttr: return get_attr(eval(*e.kids[0], sc), e.name);
      case EK::GetItem: return get_item(eval(*e.kids[0], sc), eval(*e.kids[1], sc));
      case EK::Slice: {
        Value o = eval(*e.kids[0], sc);
        auto part = [&](int k) { return e.kids[size_t(k)] ? eval(*e.kids[size_t(k)], sc) : Value::none(); };
        return slice(o, part(1), part(2), part(3));
      }
      case EK::Call: {
        Value fn = eval(*e.kids[0], sc);
        Args a = eval_args(e, sc);
        line = e.line;
        return invoke(fn, a);
      }
      case EK::Filter: {
        Value v = eval(*e.kids[0], sc);
        Args a = eval_args(e, sc);
        line = e.line;
        return apply_filter(e.name, v, a);
      }
      case EK::Test: {
        Value v = eval(*e.kids[0], sc);
        Args a = eval_args(e, sc);
        return Value::boolean(apply_test(e.name, v, a) != e.negated);
      }
      case EK::Unary: {
        Value v = eval(*e.kids[0], sc);
        if (e.name == "not") return Value::boolean(!truthy(v));
        if (v.is_undefined()) undefined_error(v);
        if (!v.is_number()) throw RenderError(std::string("bad operand type for unary ") + e.name + ": '" + type_name(v) + "'");
        if (e.name == "+") return v.kind == Kind::Bool ? Value::integer(v.b) : v;
        return v.kind == Kind::Float ? Value::real(-v.f) : Value::integer(checked(-__int128(as_int(v))));
      }
      case EK::Binary: {
        if (e.name == "and") {
          Value a = eval(*e.kids[0], sc);
          return truthy(a) ? eval(*e.kids[1], sc) : a;
        }
        if (e.name == "or") {
          Value a = eval(*e.kids[0], sc);
          return truthy(a) ? a : eval(*e.kids[1], sc);
        }
        Value a = eval(*e.kids[0], sc), b = eval(*e.kids[1], sc);
        line = e.line;
        return binary(e.name, a, b);
      }
      case EK::Compare: {
        Value a = eval(*e.kids[0], sc);
        for (size_t k = 0; k < e.ops.size(); ++k) {
          Value b = eval(*e.kids[k + 1], sc);
          if (!compare_op(e.ops[k], a, b)) return Value::boolean(false);
          a = std::move(b);
        }
        return Value::boolean(true);
      }
      case EK::Cond:
        if (truthy(eval(*e.kids[1], sc))) return eval(*e.kids[0], sc);
        return e.kids[2] ? eval(*e.kids[2], sc) : Value::undefined();
    }
    return Value();
  }

  static bool contains(const Value& hay, const Value& needle) {
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

  static bool compare_op(const std::string& o, const Value& a, const Value& b) {
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

  Value binary(const std::string& o, const Value& a, const Value& b) {
    if (o == "~") {
      std::string s = to_str(a) + to_str(b);
      if (s.size() > lim.max_output) throw RenderError("a string is larger than the output bound");
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
    if (o == "+" && a.is_string() && b.is_string()) return binary("~", a, b);
    if (o == "+" && a.is_list() && a.kind == b.kind) {
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
      if (unit && uint64_t(n) > lim.max_output / unit) throw RenderError("a repeated value is larger than the output bound");
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
};

}  // namespace

std::string render(const Body& tmpl, const std::map<std::string, Value>& globals, const Limits& limits,
                   int* error_line) {
  Renderer r{limits};
  auto root = std::make_shared<Scope>();
  for (const auto& [k, v] : globals) root->vars[k] = v;
  std::string out;
  try {
    r.exec(tmpl, root, out);
  } catch (...) {
    if (error_line) *error_line = r.line;
    root->vars.clear();
    throw;
  }
  root->vars.clear();  // break macro <-> scope cycles
  return out;
}

}  // namespace wgrt::text::jinja
