// Recursive-descent parser for the Jinja2 subset (see parser.h).
#include "text/jinja/parser.h"

#include <string>

namespace wgrt::text::jinja {
namespace {

struct Parser {
  const std::vector<Token>& t;
  size_t p = 0;
  int depth = 0;

  struct DepthGuard {
    Parser& ps;
    explicit DepthGuard(Parser& q) : ps(q) {
      if (++ps.depth > kMaxDepth) ps.fail("template nested more than " + std::to_string(kMaxDepth) + " levels deep");
    }
    ~DepthGuard() { --ps.depth; }
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError("chat template line " + std::to_string(t[p].line) + ": " + what);
  }
  const Token& cur() const { return t[p]; }
  const Token& ahead(size_t n = 1) const { return t[std::min(p + n, t.size() - 1)]; }
  bool op(const char* s) const { return cur().type == Tok::Op && cur().text == s; }
  bool name(const char* s) const { return cur().type == Tok::Name && cur().text == s; }
  std::string describe() const {
    switch (cur().type) {
      case Tok::End: return "end of template";
      case Tok::BlockEnd: return "end of statement block";
      case Tok::VarEnd: return "end of print statement";
      case Tok::Data: return "template text";
      case Tok::String: return "string";
      default: return "'" + cur().text + "'";
    }
  }
  void expect_op(const char* s) {
    if (!op(s)) fail(std::string("expected '") + s + "', got " + describe());
    ++p;
  }
  std::string expect_name() {
    if (cur().type != Tok::Name) fail("expected a name, got " + describe());
    return t[p++].text;
  }
  void expect_block_end() {
    if (cur().type != Tok::BlockEnd) fail("expected end of statement block, got " + describe());
    ++p;
  }
  ExprP node(EK k) {
    auto e = std::make_unique<Expr>();
    e->k = k;
    e->line = cur().line;
    return e;
  }

  // ---- statements ----
  Body body_until(std::initializer_list<const char*> ends, std::string* which) {
    DepthGuard g(*this);
    Body out;
    for (;;) {
      const Token& tk = cur();
      if (tk.type == Tok::End) {
        if (ends.size()) fail(std::string("missing '{% ") + *ends.begin() + " %}' (template ended)");
        return out;
      }
      if (tk.type == Tok::Data) {
        auto s = std::make_unique<Stmt>();
        s->k = SK::Text, s->line = tk.line, s->text = tk.text;
        out.push_back(std::move(s));
        ++p;
      } else if (tk.type == Tok::VarBegin) {
        auto s = std::make_unique<Stmt>();
        s->k = SK::Print, s->line = tk.line;
        ++p;
        s->expr = tuple(true);
        if (cur().type != Tok::VarEnd) fail("expected end of print statement, got " + describe());
        ++p;
        out.push_back(std::move(s));
      } else if (tk.type == Tok::BlockBegin) {
        const Token& kw = ahead();
        for (const char* e : ends)
          if (kw.type == Tok::Name && kw.text == e) {
            p += 2;
            if (which) *which = e;
            return out;
          }
        ++p;
        out.push_back(statement());
      } else {
        fail("unexpected " + describe());
      }
    }
  }

  StmtP statement() {
    auto s = std::make_unique<Stmt>();
    s->line = cur().line;
    const std::string kw = expect_name();
    std::string which;
    if (kw == "for") {
      s->k = SK::For;
      s->targets = targets();
      if (!name("in")) fail("expected 'in' in a for loop, got " + describe());
      ++p;
      s->expr = tuple(false);
      if (name("if")) ++p, s->cond = expression(true);
      if (name("recursive")) ++p, s->recursive = true;
      expect_block_end();
      s->body = body_until({"endfor", "else"}, &which);
      if (which == "else") expect_block_end(), s->else_body = body_until({"endfor"}, nullptr);
      expect_block_end();
    } else if (kw == "if") {
      s->k = SK::If;
      for (;;) {
        ExprP c = tuple(false);
        expect_block_end();
        Body b = body_until({"elif", "else", "endif"}, &which);
        s->branches.emplace_back(std::move(c), std::move(b));
        if (which != "elif") break;
      }
      if (which == "else") expect_block_end(), s->else_body = body_until({"endif"}, nullptr);
      expect_block_end();
    } else if (kw == "set") {
      s->targets = targets();
      if (op(".")) {  // set ns.attr = value
        if (s->targets.size() != 1) fail("cannot assign an attribute of a tuple");
        ++p;
        s->text = expect_name();
        s->expr = node(EK::Name);
        s->expr->name = s->targets[0];
        s->targets.clear();
      }
      if (op("=")) {
        ++p;
        s->k = SK::Set;
        s->cond = tuple(true);  // the value
        expect_block_end();
      } else {
        if (s->targets.size() != 1 || s->expr) fail("a block set assigns one name");
        s->k = SK::SetBlock;
        if (op("|")) s->filter = filters(nullptr);
        expect_block_end();
        s->body = body_until({"endset"}, nullptr);
        expect_block_end();
      }
    } else if (kw == "macro") {
      s->k = SK::Macro;
      s->text = expect_name();
      s->params = params();
      expect_block_end();
      s->body = body_until({"endmacro"}, nullptr);
      if (cur().type == Tok::Name) ++p;  // {% endmacro name %}
      expect_block_end();
    } else if (kw == "call") {
      s->k = SK::CallBlock;
      if (op("(")) s->params = params();
      s->expr = expression(true);
      if (s->expr->k != EK::Call) fail("expected a macro call after 'call'");
      expect_block_end();
      s->body = body_until({"endcall"}, nullptr);
      expect_block_end();
    } else if (kw == "filter") {
      s->k = SK::FilterBlock;
      s->filter = filters(nullptr, true);
      expect_block_end();
      s->body = body_until({"endfilter"}, nullptr);
      expect_block_end();
    } else if (kw == "break" || kw == "continue") {
      s->k = kw == "break" ? SK::Break : SK::Continue;
      expect_block_end();
    } else if (kw == "generation") {
      s->k = SK::Scope;
      expect_block_end();
      s->body = body_until({"endgeneration"}, nullptr);
      expect_block_end();
    } else {
      --p;
      fail("unknown statement '" + kw + "'" +
           (kw.rfind("end", 0) == 0 || kw == "elif" || kw == "else" ? " (no block is open that it could close)" : ""));
    }
    return s;
  }

  std::vector<std::string> targets() {
    std::vector<std::string> names;
    const bool paren = op("(");
    if (paren) ++p;
    names.push_back(expect_name());
    while (op(",")) {
      ++p;
      if (cur().type != Tok::Name) break;
      names.push_back(expect_name());
    }
    if (paren) expect_op(")");
    return names;
  }

  std::vector<Param> params() {
    std::vector<Param> out;
    expect_op("(");
    while (!op(")")) {
      if (!out.empty()) expect_op(",");
      if (op(")")) break;
      Param pr;
      pr.name = expect_name();
      if (op("=")) ++p, pr.def = expression(true);
      out.push_back(std::move(pr));
    }
    ++p;
    return out;
  }

  // ---- expressions ----
  ExprP tuple(bool condexpr) {
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

  ExprP expression(bool condexpr) {
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

  ExprP binary(ExprP a, const std::string& o, ExprP b) {
    auto e = node(EK::Binary);
    e->name = o;
    e->kids.push_back(std::move(a));
    e->kids.push_back(std::move(b));
    return e;
  }
  ExprP or_expr() {
    ExprP e = and_expr();
    while (name("or")) ++p, e = binary(std::move(e), "or", and_expr());
    return e;
  }
  ExprP and_expr() {
    ExprP e = not_expr();
    while (name("and")) ++p, e = binary(std::move(e), "and", not_expr());
    return e;
  }
  ExprP not_expr() {
    if (!name("not")) return compare();
    DepthGuard g(*this);
    auto e = node(EK::Unary);
    ++p;
    e->name = "not";
    e->kids.push_back(not_expr());
    return e;
  }
  ExprP compare() {
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
  ExprP math1() {
    ExprP e = concat();
    while (op("+") || op("-")) {
      std::string o = t[p++].text;
      e = binary(std::move(e), o, concat());
    }
    return e;
  }
  ExprP concat() {
    ExprP e = math2();
    while (op("~")) ++p, e = binary(std::move(e), "~", math2());
    return e;
  }
  ExprP math2() {
    ExprP e = power();
    while (op("*") || op("/") || op("//") || op("%")) {
      std::string o = t[p++].text;
      e = binary(std::move(e), o, power());
    }
    return e;
  }
  ExprP power() {
    ExprP e = unary(true);
    while (op("**")) ++p, e = binary(std::move(e), "**", unary(true));
    return e;
  }
  ExprP unary(bool with_filter) {
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

  ExprP primary() {
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
        try {
          e->lit = Value::integer(std::stoll(tk.text));
        } catch (const std::exception&) {
          fail("integer literal " + tk.text + " is out of the 64-bit range");
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

  ExprP postfix(ExprP e) {
    for (;;) {
      if (op(".")) {
        ++p;
        if (cur().type == Tok::Int) {
          auto g = node(EK::GetItem);
          g->kids.push_back(std::move(e));
          auto idx = node(EK::Literal);
          idx->lit = Value::integer(std::stoll(t[p++].text));
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

  ExprP subscript(ExprP target) {
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

  void call_args(Expr& e) {
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
  ExprP call(ExprP callee) {
    auto e = node(EK::Call);
    e->kids.push_back(std::move(callee));
    call_args(*e);
    return e;
  }

  // Filters and tests after a value (`e` null: the innermost of a {% filter %} / block set chain).
  ExprP filters(ExprP e, bool first_without_bar = false) {
    for (;;) {
      if (op("|") || first_without_bar) {
        if (!first_without_bar) ++p;
        first_without_bar = false;
        auto f = node(EK::Filter);
        f->name = expect_name();
        while (op(".")) ++p, f->name += "." + expect_name();
        if (!known_filter(f->name)) --p, fail("no filter named '" + f->name + "'");
        f->kids.push_back(std::move(e));
        if (op("(")) call_args(*f);
        e = std::move(f);
      } else if (name("is") && e) {
        ++p;
        auto tst = node(EK::Test);
        if (name("not")) ++p, tst->negated = true;
        tst->name = expect_name();
        if (!known_test(tst->name)) --p, fail("no test named '" + tst->name + "'");
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
};

}  // namespace

Body parse(const std::vector<Token>& tokens) {
  Parser ps{tokens};
  return ps.body_until({}, nullptr);
}

}  // namespace wgrt::text::jinja
