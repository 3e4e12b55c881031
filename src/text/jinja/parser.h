// Parser of the Jinja2 subset used by chat templates (see ast.h for the tree). Follows jinja2 3.1's grammar
// and operator precedence: ternary < or < and < not < comparisons/in < + - < ~ < * / // % < ** < unary - +
// < postfix (. [] ()) and filters/tests. Statements: for (filter-if, else, recursive), if/elif/else, set
// (names, tuples, ns.attr, block set with filters), macro, call, filter, with, break/continue (HF enables
// jinja2.ext.loopcontrols), generation (HF's AssistantTracker tag, rendered as its body), raw.
#pragma once
#include <vector>

#include "text/jinja/ast.h"
#include "text/jinja/lexer.h"

namespace wgrt::text::jinja {

// Throws wgrt::FormatError ("chat template line L: ...") on a syntax error, an unknown filter or test (jinja2
// fails those at compile time) or nesting deeper than kMaxDepth.
Body parse(const std::vector<Token>& tokens);

constexpr int kMaxDepth = 200;

// Names the evaluator implements (filters.cpp).
bool known_filter(const std::string& name);
bool known_test(const std::string& name);

}  // namespace wgrt::text::jinja
