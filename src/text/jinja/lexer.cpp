// Jinja2 lexer (see lexer.h). Whitespace control follows jinja2 3.1's tokeniter: `{%-`/`{{-`/`{#-` strip all
// whitespace before the tag; lstrip_blocks strips spaces and tabs between a line start and a `{%`/`{#` tag;
// `-%}` strips all whitespace after; trim_blocks drops one newline after `%}` and `#}`.
#include "text/jinja/lexer.h"

#include <cctype>
#include <string>

#include "text/jinja/value.h"

namespace wgrt::text::jinja {
namespace {

[[noreturn]] void fail(int line, const std::string& what) {
  throw FormatError("chat template line " + std::to_string(line) + ": " + what);
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string rstrip_ws(std::string_view t) {
  size_t e = t.size();
  while (e > 0 && is_ws(t[e - 1])) --e;
  return std::string(t.substr(0, e));
}

void append_cp(std::string& out, uint32_t cp) { out += encode(std::u32string(1, char32_t(cp))); }

// Python's "unicode-escape" decoding of a string literal's body.
std::string unescape(std::string_view s, int line) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] != '\\' || k + 1 >= s.size()) {
      out += s[k];
      continue;
    }
    char c = s[++k];
    auto hex = [&](size_t n) {
      uint32_t v = 0;
      for (size_t j = 1; j <= n; ++j) {
        if (k + j >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[k + j])))
          fail(line, "truncated \\x/\\u escape in a string");
        v = v * 16 + uint32_t(std::isdigit(static_cast<unsigned char>(s[k + j])) ? s[k + j] - '0'
                                                                                  : (std::tolower(s[k + j]) - 'a' + 10));
      }
      k += n;
      if (v > 0x10FFFF) fail(line, "escape out of the Unicode range in a string");
      append_cp(out, v);
    };
    switch (c) {
      case '\n': break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x': hex(2); break;
      case 'u': hex(4); break;
      case 'U': hex(8); break;
      default:
        if (c >= '0' && c <= '7') {
          uint32_t v = 0;
          size_t n = 0;
          while (n < 3 && k < s.size() && s[k] >= '0' && s[k] <= '7') v = v * 8 + uint32_t(s[k++] - '0'), ++n;
          --k;
          append_cp(out, v);
        } else {
          out += '\\';
          out += c;
        }
    }
  }
  return out;
}

struct Lexer {
  std::string src;
  size_t pos = 0;
  int line = 1;
  std::vector<Token> out;

  void advance_to(size_t p) {
    for (size_t k = pos; k < p && k < src.size(); ++k) line += src[k] == '\n';
    pos = p;
  }

  // After an end tag: '-' strips all whitespace, otherwise trim_blocks drops one newline (block tags only).
  // Returns whether what it consumed ended with a newline (jinja2's line_starting).
  bool after_end(char sign, bool trim_newline) {
    size_t p = pos;
    if (sign == '-') {
      while (p < src.size() && is_ws(src[p])) ++p;
    } else if (sign != '+' && trim_newline && p < src.size() && src[p] == '\n') {
      ++p;
    }
    bool nl = p > pos && src[p - 1] == '\n';
    advance_to(p);
    return nl;
  }

  void lex_tag(bool block) {  // tokens up to '}}' or '%}'; pos is after the opener and its sign
    const char* close = block ? "%}" : "}}";
    int brackets = 0;  // like jinja2's balancing stack: no end of tag inside (), [], {}
    for (;;) {
      while (pos < src.size() && is_ws(src[pos])) advance_to(pos + 1);
      if (pos >= src.size()) fail(line, std::string("missing '") + close + "' to close the tag");
      char sign = 0;
      if (brackets == 0 && (src[pos] == '-' || src[pos] == '+') && src.compare(pos + 1, 2, close) == 0) sign = src[pos];
      if (brackets == 0 && (sign || src.compare(pos, 2, close) == 0)) {
        advance_to(pos + (sign ? 3 : 2));
        out.push_back({block ? Tok::BlockEnd : Tok::VarEnd, close, line});
        line_starting = after_end(sign, block);
        return;
      }
      const char c = src[pos];
      const int l0 = line;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t e = pos;
        while (e < src.size() && (std::isalnum(static_cast<unsigned char>(src[e])) || src[e] == '_')) ++e;
        out.push_back({Tok::Name, src.substr(pos, e - pos), l0});
        advance_to(e);
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        lex_number();
      } else if (c == '\'' || c == '"') {
        size_t e = pos + 1;
        while (e < src.size() && src[e] != c) e += src[e] == '\\' ? 2 : 1;
        if (e >= src.size()) fail(l0, "unterminated string");
        out.push_back({Tok::String, unescape(std::string_view(src).substr(pos + 1, e - pos - 1), l0), l0});
        advance_to(e + 1);
      } else {
        static const char* kOps2[] = {"//", "**", "==", "!=", ">=", "<="};
        std::string op;
        for (const char* o : kOps2)
          if (src.compare(pos, 2, o) == 0) op = o;
        if (op.empty() && std::string_view("+-/*%~[](){}><=.:|,;").find(c) != std::string_view::npos) op = c;
        if (op.empty()) fail(l0, std::string("unexpected character '") + c + "' in a tag");
        if (op == "(" || op == "[" || op == "{") ++brackets;
        if ((op == ")" || op == "]" || op == "}") && --brackets < 0) fail(l0, "unexpected '" + op + "'");
        out.push_back({Tok::Op, op, l0});
        advance_to(pos + op.size());
      }
    }
  }

  void lex_number() {
    auto digits = [&](size_t p) {
      while (p < src.size() && (std::isdigit(static_cast<unsigned char>(src[p])) ||
                                (src[p] == '_' && p + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[p + 1])))))
        ++p;
      return p;
    };
    size_t e = digits(pos);
    bool is_float = false;
    const bool after_dot = !out.empty() && out.back().type == Tok::Op && out.back().text == ".";
    if (!after_dot) {
      if (e + 1 < src.size() && src[e] == '.' && std::isdigit(static_cast<unsigned char>(src[e + 1])))
        e = digits(e + 1), is_float = true;
      if (e < src.size() && (src[e] == 'e' || src[e] == 'E')) {
        size_t p = e + 1;
        if (p < src.size() && (src[p] == '+' || src[p] == '-')) ++p;
        if (p < src.size() && std::isdigit(static_cast<unsigned char>(src[p]))) e = digits(p), is_float = true;
      }
    }
    std::string t;
    for (size_t k = pos; k < e; ++k)
      if (src[k] != '_') t += src[k];
    out.push_back({is_float ? Tok::Float : Tok::Int, t, line});
    advance_to(e);
  }

  bool line_starting = true;

  void run() {
    while (pos < src.size()) {
      size_t t = pos;
      while ((t = src.find('{', t)) != std::string::npos && t + 1 < src.size() && src[t + 1] != '{' &&
             src[t + 1] != '%' && src[t + 1] != '#')
        ++t;
      if (t == std::string::npos || t + 1 >= src.size()) {
        out.push_back({Tok::Data, src.substr(pos), line});
        advance_to(src.size());
        break;
      }
      const char kind = src[t + 1];
      const char sign = t + 2 < src.size() && (src[t + 2] == '-' || src[t + 2] == '+') ? src[t + 2] : 0;
      std::string text = src.substr(pos, t - pos);
      if (sign == '-') {
        text = rstrip_ws(text);
      } else if (sign != '+' && kind != '{') {  // lstrip_blocks
        size_t l_pos = text.rfind('\n');
        l_pos = l_pos == std::string::npos ? 0 : l_pos + 1;
        if ((l_pos > 0 || line_starting) && text.find_first_not_of(" \t", l_pos) == std::string::npos)
          text.resize(l_pos);
      }
      if (!text.empty()) out.push_back({Tok::Data, text, line});
      advance_to(t + 2 + (sign ? 1 : 0));
      if (kind == '#') {
        size_t e = src.find("#}", pos);
        if (e == std::string::npos) fail(line, "missing '#}' to close the comment");
        char esign = e > pos && (src[e - 1] == '-' || src[e - 1] == '+') ? src[e - 1] : 0;
        advance_to(e + 2);
        line_starting = after_end(esign, true);
      } else if (kind == '%' && is_raw_open()) {
        lex_raw();
      } else {
        out.push_back({kind == '%' ? Tok::BlockBegin : Tok::VarBegin, kind == '%' ? "{%" : "{{", line});
        lex_tag(kind == '%');
      }
    }
    out.push_back({Tok::End, "", line});
  }

  // {% raw %}...{% endraw %}: the body is data, verbatim.
  bool is_raw_open() const {
    size_t p = pos;
    while (p < src.size() && is_ws(src[p])) ++p;
    if (src.compare(p, 3, "raw") != 0) return false;
    p += 3;
    while (p < src.size() && is_ws(src[p])) ++p;
    return src.compare(p, 2, "%}") == 0 || src.compare(p, 3, "-%}") == 0;
  }
  void lex_raw() {
    size_t p = src.find("%}", pos);
    const char open_sign = src[p - 1] == '-' ? '-' : 0;
    advance_to(p + 2);
    after_end(open_sign, true);
    size_t body = pos, e = body;
    for (;; ++e) {
      e = src.find("{%", e);
      if (e == std::string::npos) fail(line, "missing '{% endraw %}'");
      size_t q = e + 2 + (src[e + 2] == '-' || src[e + 2] == '+');
      while (q < src.size() && is_ws(src[q])) ++q;
      if (src.compare(q, 6, "endraw") == 0) break;
    }
    std::string text = src.substr(body, e - body);
    if (src[e + 2] == '-') text = rstrip_ws(text);
    if (!text.empty()) out.push_back({Tok::Data, text, line});
    size_t c = src.find("%}", e);
    if (c == std::string::npos) fail(line, "missing '%}' after endraw");
    const char esign = src[c - 1] == '-' || src[c - 1] == '+' ? src[c - 1] : 0;
    advance_to(c + 2);
    line_starting = after_end(esign, true);
  }
};

}  // namespace

std::vector<Token> lex(std::string_view source) {
  Lexer lx;
  lx.src.reserve(source.size());
  for (size_t k = 0; k < source.size(); ++k) {  // newlines -> "\n"
    if (source[k] == '\r') {
      lx.src += '\n';
      if (k + 1 < source.size() && source[k + 1] == '\n') ++k;
    } else {
      lx.src += source[k];
    }
  }
  if (!lx.src.empty() && lx.src.back() == '\n') lx.src.pop_back();
  lx.run();
  return std::move(lx.out);
}

}  // namespace wgrt::text::jinja
