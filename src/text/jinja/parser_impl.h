// The recursive-descent parser's state and methods (parser.cpp: statements and entry point; parse_expr.cpp:
// expressions). Internal to src/text/jinja.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "text/jinja/parser.h"

namespace wgrt::text::jinja {

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

  // ---- statements (parser.cpp) ----
  Body body_until(std::initializer_list<const char*> ends, std::string* which);
  StmtP statement();
  std::vector<std::string> targets();
  std::vector<Param> params();
  // ---- expressions (parse_expr.cpp) ----
  ExprP tuple(bool condexpr);
  ExprP expression(bool condexpr);
  ExprP binary(ExprP a, const std::string& o, ExprP b);
  ExprP or_expr();
  ExprP and_expr();
  ExprP not_expr();
  ExprP compare();
  ExprP math1();
  ExprP concat();
  ExprP math2();
  ExprP power();
  ExprP unary(bool with_filter);
  ExprP primary();
  ExprP postfix(ExprP e);
  ExprP subscript(ExprP target);
  void call_args(Expr& e);
  ExprP call(ExprP callee);
  ExprP filters(ExprP e, bool first_without_bar = false);
};

}  // namespace wgrt::text::jinja
