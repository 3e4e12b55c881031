// Recursive-descent parser for the Jinja2 subset (see parser.h).
#include "text/jinja/parser.h"

#include <string>

#include "text/jinja/parser_impl.h"

namespace wgrt::text::jinja {

Body Parser::body_until(std::initializer_list<const char*> ends, std::string* which) {
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

StmtP Parser::statement() {
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
  } else if (kw == "with") {  // {% with a = 1, b = x %}...{% endwith %}
    s->k = SK::With;
    while (cur().type != Tok::BlockEnd) {
      if (!s->params.empty()) expect_op(",");
      Param pr;
      pr.name = expect_name();
      expect_op("=");
      pr.def = expression(true);
      s->params.push_back(std::move(pr));
    }
    expect_block_end();
    s->body = body_until({"endwith"}, nullptr);
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

std::vector<std::string> Parser::targets() {
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

std::vector<Param> Parser::params() {
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

namespace {

// jinja2 rejects an unknown filter or test at compile time, except inside an if statement or a conditional
// expression (its "soft" frames), where the error waits until the filter is applied. Loop, macro and block
// bodies start hard again.
void check_names(const Expr* e, bool soft) {
  if (!e) return;
  if ((e->k == EK::Filter && !known_filter(e->name)) || (e->k == EK::Test && !known_test(e->name))) {
    if (!soft)
      throw FormatError("chat template line " + std::to_string(e->line) + ": no " +
                        (e->k == EK::Filter ? "filter" : "test") + " named '" + e->name + "'");
  }
  soft = soft || e->k == EK::Cond;
  for (const auto& k : e->kids) check_names(k.get(), soft);
  for (const auto& [n, k] : e->kwargs) check_names(k.get(), soft);
}

void check_names(const Body& body, bool soft) {
  for (const auto& s : body) {
    check_names(s->expr.get(), soft);
    check_names(s->filter.get(), s->k == SK::FilterBlock || s->k == SK::SetBlock ? false : soft);
    for (const auto& [c, b] : s->branches) check_names(c.get(), true), check_names(b, true);
    const bool inner = s->k == SK::If ? soft : false;
    check_names(s->cond.get(), s->k == SK::Set ? soft : false);
    for (const auto& p : s->params) check_names(p.def.get(), false);
    check_names(s->body, inner);
    check_names(s->else_body, s->k == SK::If ? true : soft);
  }
}

}  // namespace

Body parse(const std::vector<Token>& tokens) {
  Parser ps{tokens};
  Body b = ps.body_until({}, nullptr);
  check_names(b, false);
  return b;
}

}  // namespace wgrt::text::jinja
