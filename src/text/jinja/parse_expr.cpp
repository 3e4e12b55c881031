// Expression parsing (see parser.h for the precedence and parser_impl.h for the state).
#include <string>

#include "text/jinja/parser_impl.h"

namespace wgrt::text::jinja {

ExprP Parser::tuple(bool condexpr) {
  const int line = cur().line;
  ExprP first = expression(condexpr);
  if (!op(",")) return first;
  auto tup = node(EK::Tuple);
  tup->line = line;
  tup->kids.push_back(std::move(first));
  while (op(",")) {
    ++p;
    if (cur().type == Tok::VarEnd || cur().type == Tok::BlockEnd || op(")") || op("=")) break;
    tup->kids.push_back(expression(condexpr));
  }
  return tup;
}

ExprP Parser::expression(bool condexpr) {
  DepthGuard g(*this);
  ExprP e = or_expr();
  while (condexpr && name("if")) {
    auto c = node(EK::Cond);
    ++p;
    c->kids.push_back(std::move(e));
    c->kids.push_back(or_expr());
    if (name("else")) ++p, c->kids.push_back(expression(true));
    else c->kids.push_back(nullptr);
    e = std::move(c);
  }
  return e;
}

ExprP Parser::binary(ExprP a, const std::string& o, ExprP b) {
  auto e = node(EK::Binary);
  e->name = o;
  e->kids.push_back(std::move(a));
  e->kids.push_back(std::move(b));
  return e;
}
ExprP Parser::or_expr() {
  ExprP e = and_expr();
  while (name("or")) ++p, e = binary(std::move(e), "or", and_expr());
  return e;
}
ExprP Parser::and_expr() {
  ExprP e = not_expr();
  while (name("and")) ++p, e = binary(std::move(e), "and", not_expr());
  return e;
}
ExprP Parser::not_expr() {
  if (!name("not")) return compare();
  DepthGuard g(*this);
  auto e = node(EK::Unary);
  ++p;
  e->name = "not";
  e->kids.push_back(not_expr());
  return e;
}
ExprP Parser::compare() {
  ExprP first = math1();
  ExprP cmp;
  for (;;) {
    std::string o;
    if (cur().type == Tok::Op && (cur().text == "==" || cur().text == "!=" || cur().text == "<" ||
                                  cur().text == ">" || cur().text == "<=" || cur().text == ">="))
      o = cur().text, ++p;
    else if (name("in")) o = "in", ++p;
    else if (name("not") && ahead().type == Tok::Name && ahead().text == "in") o = "notin", p += 2;
    else break;
    if (!cmp) cmp = node(EK::Compare), cmp->kids.push_back(std::move(first));
    cmp->ops.push_back(o);
    cmp->kids.push_back(math1());
  }
  return cmp ? std::move(cmp) : std::move(first);
}
ExprP Parser::math1() {
  ExprP e = concat();
  while (op("+") || op("-")) {
    std::string o = t[p++].text;
    e = binary(std::move(e), o, concat());
  }
  return e;
}
ExprP Parser::concat() {
  ExprP e = math2();
  while (op("~")) ++p, e = binary(std::move(e), "~", math2());
  return e;
}
ExprP Parser::math2() {
  ExprP e = power();
  while (op("*") || op("/") || op("//") || op("%")) {
    std::string o = t[p++].text;
    e = binary(std::move(e), o, power());
  }
  return e;
}
ExprP Parser::power() {
  ExprP e = unary(true);
  while (op("**")) ++p, e = binary(std::move(e), "**", unary(true));
  return e;
}
ExprP Parser::unary(bool with_filter) {
  DepthGuard g(*this);
  ExprP e;
  if (op("-") || op("+")) {
    e = node(EK::Unary);
    e->name = t[p++].text;
    e->kids.push_back(unary(false));
  } else {
    e = primary();
  }
  e = postfix(std::move(e));
  return with_filter ? filters(std::move(e)) : std::move(e);
}

ExprP Parser::primary() {
  const Token& tk = cur();
  auto e = node(EK::Literal);
  switch (tk.type) {
    case Tok::Name:
      ++p;
      if (tk.text == "true" || tk.text == "True") e->lit = Value::boolean(true);
      else if (tk.text == "false" || tk.text == "False") e->lit = Value::boolean(false);
      else if (tk.text == "none" || tk.text == "None") e->lit = Value::none();
      else e->k = EK::Name, e->name = tk.text;
      return e;
    case Tok::String: {
      std::string s;
      while (cur().type == Tok::String) s += t[p++].text;
      e->lit = Value::str(std::move(s));
      return e;
    }
    case Tok::Int:
      ++p;
      {
        int64_t v = 0;
        if (!parse_int64(tk.text, &v)) --p, fail("integer literal " + tk.text + " is out of the 64-bit range");
        e->lit = Value::integer(v);
      }
      return e;
    case Tok::Float:
      ++p;
      e->lit = Value::real(std::strtod(tk.text.c_str(), nullptr));
      return e;
    default: break;
  }
  if (op("(")) {
    ++p;
    if (op(")")) {
      ++p;
      e->k = EK::Tuple;
      return e;
    }
    ExprP inner = tuple(true);
    expect_op(")");
    return inner;
  }
  if (op("[") || op("{")) {
    const bool is_list = op("[");
    e->k = is_list ? EK::List : EK::Dict;
    ++p;
    const char* close = is_list ? "]" : "}";
    while (!op(close)) {
      if (!e->kids.empty()) {
        expect_op(",");
        if (op(close)) break;
      }
      e->kids.push_back(expression(true));
      if (!is_list) expect_op(":"), e->kids.push_back(expression(true));
    }
    ++p;
    return e;
  }
  fail("unexpected " + describe());
}

ExprP Parser::postfix(ExprP e) {
  for (;;) {
    if (op(".")) {
      ++p;
      if (cur().type == Tok::Int) {
        auto g = node(EK::GetItem);
        g->kids.push_back(std::move(e));
        auto idx = node(EK::Literal);
        int64_t v = 0;
        if (!parse_int64(cur().text, &v)) fail("index " + cur().text + " is out of the 64-bit range");
        ++p;
        idx->lit = Value::integer(v);
        g->kids.push_back(std::move(idx));
        e = std::move(g);
      } else {
        auto g = node(EK::GetAttr);
        g->name = expect_name();
        g->kids.push_back(std::move(e));
        e = std::move(g);
      }
    } else if (op("[")) {
      ++p;
      e = subscript(std::move(e));
    } else if (op("(")) {
      e = call(std::move(e));
    } else {
      return e;
    }
  }
}

ExprP Parser::subscript(ExprP target) {
  ExprP parts[3];
  int n = 0;
  bool slice = false;
  for (;;) {
    if (op(":")) {
      slice = true;
      if (++n > 2) fail("a slice has at most two ':'");
      ++p;
      continue;
    }
    if (op("]")) break;
    if (parts[n]) fail("expected ':' or ']' in a subscript, got " + describe());
    parts[n] = expression(true);
  }
  ++p;
  auto e = node(slice ? EK::Slice : EK::GetItem);
  e->kids.push_back(std::move(target));
  if (!slice && !parts[0]) fail("empty subscript");
  for (int k = 0; k < (slice ? 3 : 1); ++k) e->kids.push_back(std::move(parts[k]));
  return e;
}

void Parser::call_args(Expr& e) {
  expect_op("(");
  bool first = true;
  while (!op(")")) {
    if (!first) {
      expect_op(",");
      if (op(")")) break;
    }
    first = false;
    if (op("*") || op("**")) fail("*args and **kwargs in calls are not supported");
    if (cur().type == Tok::Name && ahead().type == Tok::Op && ahead().text == "=") {
      std::string n = t[p].text;
      p += 2;
      e.kwargs.emplace_back(n, expression(true));
    } else {
      if (!e.kwargs.empty()) fail("a positional argument follows a keyword argument");
      e.kids.push_back(expression(true));
    }
  }
  ++p;
}
ExprP Parser::call(ExprP callee) {
  auto e = node(EK::Call);
  e->kids.push_back(std::move(callee));
  call_args(*e);
  return e;
}

// Filters and tests after a value (`e` null: the innermost of a {% filter %} / block set chain).
ExprP Parser::filters(ExprP e, bool first_without_bar) {
  for (;;) {
    if (op("|") || first_without_bar) {
      if (!first_without_bar) ++p;
      first_without_bar = false;
      auto f = node(EK::Filter);
      f->name = expect_name();
      while (op(".")) ++p, f->name += "." + expect_name();
      f->kids.push_back(std::move(e));
      if (op("(")) call_args(*f);
      e = std::move(f);
    } else if (name("is") && e) {
      ++p;
      auto tst = node(EK::Test);
      if (name("not")) ++p, tst->negated = true;
      tst->name = expect_name();
      tst->kids.push_back(std::move(e));
      const Tok ty = cur().type;
      if (op("(")) {
        call_args(*tst);
      } else if ((ty == Tok::Name || ty == Tok::String || ty == Tok::Int || ty == Tok::Float || op("[") ||
                  op("{")) &&
                 !name("else") && !name("or") && !name("and")) {
        if (name("is")) fail("cannot chain tests with 'is'");
        tst->kids.push_back(postfix(primary()));
      }
      e = std::move(tst);
    } else if (op("(") && e) {
      e = call(std::move(e));
    } else {
      return e;
    }
  }
}

}  // namespace wgrt::text::jinja
