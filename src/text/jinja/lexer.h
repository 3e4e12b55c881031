// Lexer of the Jinja2 template language, configured as Hugging Face's chat templates use it: trim_blocks and
// lstrip_blocks on, `-`/`+` whitespace control on every tag, newlines normalized to "\n" and one trailing
// newline of the source dropped (jinja2's keep_trailing_newline=False). Follows jinja2 3.1's lexer.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::text::jinja {

enum class Tok { Data, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Int, Float, Op, End };

struct Token {
  Tok type;
  std::string text;  // Data: the text; Name/Op: the spelling; String: the decoded value; Int/Float: digits
  int line;
};

// Throws wgrt::FormatError ("chat template line L: ...") on an unterminated tag, comment or string or an
// unexpected character.
std::vector<Token> lex(std::string_view source);

}  // namespace wgrt::text::jinja
