// Syntax tree of a parsed Jinja2 template: expressions (Expr) and statements (Stmt). Built by parser.cpp,
// read-only afterwards (so one tree may be rendered by several threads at once).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "text/jinja/value.h"

namespace wgrt::text::jinja {

struct Expr;
using ExprP = std::unique_ptr<Expr>;

enum class EK {
  Literal,    // lit
  Name,       // name
  List,       // kids
  Tuple,      // kids
  Dict,       // kids: key0, value0, key1, value1, ...
  GetAttr,    // kids[0] . name
  GetItem,    // kids[0] [ kids[1] ]
  Slice,      // kids[0] [ kids[1] : kids[2] : kids[3] ] (absent parts are null)
  Call,       // kids[0] ( kids[1..], kwargs )
  Filter,     // kids[0] | name ( kids[1..], kwargs ); kids[0] null in a {% filter %} block
  Test,       // kids[0] is [not] name ( kids[1..] ); negated
  Unary,      // name ("-", "+", "not") kids[0]
  Binary,     // kids[0] name kids[1]: + - * / // % ** ~ and or in notin
  Compare,    // kids[0] ops[0] kids[1] ops[1] kids[2] ...
  Cond,       // kids[0] if kids[1] else kids[2] (kids[2] null: undefined)
};

struct Expr {
  EK k;
  int line = 0;
  Value lit;
  std::string name;
  bool negated = false;
  std::vector<ExprP> kids;
  std::vector<std::pair<std::string, ExprP>> kwargs;
  std::vector<std::string> ops;
};

struct Stmt;
using StmtP = std::unique_ptr<Stmt>;
using Body = std::vector<StmtP>;

enum class SK { Text, Print, If, For, Set, SetBlock, Macro, CallBlock, FilterBlock, Break, Continue, Scope, With };

struct Param {
  std::string name;
  ExprP def;  // null: required
};

struct Stmt {
  SK k;
  int line = 0;
  std::string text;                    // Text; Set/SetBlock/Macro: the name; Set on ns.attr: the attribute
  std::vector<std::string> targets;    // For / Set: target names (tuple unpacking when > 1)
  ExprP expr;                          // Print, For iterable, Set value, Set namespace object, CallBlock call
  ExprP cond;                          // For's filter condition
  ExprP filter;                        // SetBlock / FilterBlock filter chain (Filter nodes with null innermost)
  std::vector<std::pair<ExprP, Body>> branches;  // If: (condition, body)...
  Body body, else_body;                // For, Macro, SetBlock, CallBlock, FilterBlock, Scope; If/For else
  std::vector<Param> params;           // Macro / CallBlock (caller's) parameters; With: name = value pairs
  bool recursive = false;              // For
  bool uses_caller = false;            // Macro
};

}  // namespace wgrt::text::jinja
