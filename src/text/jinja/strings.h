// Python str semantics on UTF-8 text, by code point: case mapping (ASCII, Latin-1, Greek, Cyrillic; other
// scripts are left unchanged and count as cased letters), strip/split/replace/find, str.format with
// positional and named fields.
#pragma once
#include <string>
#include <vector>

#include "text/jinja/value.h"

namespace wgrt::text::jinja {

std::string py_upper(const std::string& s);
std::string py_lower(const std::string& s);
std::string py_title(const std::string& s);
std::string py_capitalize(const std::string& s);
// chars: none/undefined = whitespace, else the set of code points of a string. which: 'l', 'r' or 'b'oth.
std::string py_strip(const std::string& s, const Value& chars, char which);
// sep none = runs of whitespace. maxsplit < 0: no limit. from_right: rsplit.
std::vector<std::string> py_split(const std::string& s, const Value& sep, int64_t maxsplit, bool from_right);
std::string py_replace(const std::string& s, const std::string& old, const std::string& repl, int64_t count);
std::vector<std::string> py_splitlines(const std::string& s);
std::string py_format(const std::string& fmt, const Args& a);

}  // namespace wgrt::text::jinja
