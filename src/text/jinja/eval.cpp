// Statement execution and expression evaluation (see eval.h).
#include "text/jinja/eval.h"

#include "text/jinja/operators.h"

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


struct Renderer {
  const Limits& lim;
  uint64_t iterations = 0;
  int depth = 0, macro_depth = 0;
  size_t work = 0;
  int line = 0;
  size_t total_out = 0;

  void emit(std::string& out, std::string_view s) {
    total_out += s.size();
    if (total_out > lim.max_output)
      throw RenderError("the output is larger than the " + std::to_string(lim.max_output >> 20) + " MiB bound");
    out += s;
  }

  struct Depth {  // nesting of evaluation frames (macro_calls: of macro calls)
    int& d;
    Depth(Renderer& r, bool macro_call) : d(macro_call ? r.macro_depth : r.depth) {
      const int limit = macro_call ? r.lim.max_call_depth : r.lim.max_eval_depth;
      if (++d > limit) {
        --d;
        throw RenderError(std::string(macro_call ? "macro calls nested" : "evaluation nested") + " deeper than " +
                          std::to_string(limit) + " levels");
      }
    }
    ~Depth() { --d; }
  };

  // Counts the bytes of values made by operators, filters and calls against max_work (bounds memory and time).
  const Value& charge(const Value& v) {
    size_t n = v.is_string() ? v.s.size() : v.kind == Kind::Dict ? v.dict->items.size() * 2 * sizeof(Value) : 0;
    if (v.is_list())
      for (const Value& x : *v.list) n += sizeof(Value) + x.s.size();
    work += n;
    if (work > lim.max_work)
      throw RenderError("the template made more than " + std::to_string(lim.max_work >> 20) +
                        " MiB of intermediate values");
    return v;
  }

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
      case SK::With: {  // the values are evaluated in the outer scope, then bound in a child scope
        auto ws = child(sc);
        for (const auto& p : s.params) ws->vars[p.name] = eval(*p.def, sc);
        return exec(s.body, ws, out);
      }
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
      auto& d = loop.dict->items;
      static const Value kIndex = Value::str("index"), kIndex0 = Value::str("index0"), kRev = Value::str("revindex"),
                         kRev0 = Value::str("revindex0"), kFirst = Value::str("first"), kLast = Value::str("last"),
                         kLength = Value::str("length"), kDepth = Value::str("depth"), kDepth0 = Value::str("depth0"),
                         kPrev = Value::str("previtem"), kNext = Value::str("nextitem"), kCycle = Value::str("cycle");
      d.reserve(12);
      d.emplace_back(kIndex, Value::integer(k + 1));
      d.emplace_back(kIndex0, Value::integer(k));
      d.emplace_back(kRev, Value::integer(n - k));
      d.emplace_back(kRev0, Value::integer(n - k - 1));
      d.emplace_back(kFirst, Value::boolean(k == 0));
      d.emplace_back(kLast, Value::boolean(k == n - 1));
      d.emplace_back(kLength, Value::integer(n));
      d.emplace_back(kDepth, Value::integer(1));
      d.emplace_back(kDepth0, Value::integer(0));
      d.emplace_back(kPrev, k > 0 ? items[size_t(k - 1)] : Value::undefined("previtem"));
      d.emplace_back(kNext, k + 1 < n ? items[size_t(k + 1)] : Value::undefined("nextitem"));
      d.emplace_back(kCycle, Value::function("cycle", [k](Args& a) {
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
      Depth g(*this, true);
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
    Depth g(*this, false);
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
        return charge(invoke(fn, a));
      }
      case EK::Filter: {
        Value v = eval(*e.kids[0], sc);
        Args a = eval_args(e, sc);
        line = e.line;
        return charge(apply_filter(e.name, v, a));
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
        return charge(binary_op(e.name, a, b, lim.max_output));
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
