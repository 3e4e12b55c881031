#include "webgpu/wgsl_reflect.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "wgrt/error.h"

namespace wgrt::webgpu {

const char* binding_type_name(BindingType t) {
  switch (t) {
    case BindingType::Uniform: return "uniform";
    case BindingType::ReadOnlyStorage: return "storage, read";
    default: return "storage, read_write";
  }
}

namespace {

struct Tok {
  enum Kind { Ident, Num, Punct } kind;
  std::string s;
};

std::vector<Tok> tokenize(std::string_view t) {
  std::vector<Tok> out;
  size_t i = 0;
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < t.size()) {
    char c = t[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (t.compare(i, 2, "//") == 0) {
      i = std::min(t.find('\n', i), t.size());
    } else if (t.compare(i, 2, "/*") == 0) {
      size_t e = t.find("*/", i + 2);
      i = e == std::string_view::npos ? t.size() : e + 2;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < t.size() && (ident_char(t[j]) || t[j] == '.')) ++j;
      out.push_back({Tok::Num, std::string(t.substr(i, j - i))});
      i = j;
    } else if (ident_char(c)) {
      size_t j = i;
      while (j < t.size() && ident_char(t[j])) ++j;
      out.push_back({Tok::Ident, std::string(t.substr(i, j - i))});
      i = j;
    } else {
      out.push_back({Tok::Punct, std::string(1, c)});
      ++i;
    }
  }
  return out;
}

struct Layout {
  uint32_t size = 0, align = 1;
  std::string text;
};

uint32_t round_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

class Reflector {
 public:
  Reflector(std::string_view label, std::string_view text, const std::vector<std::pair<std::string, double>>& c)
      : label_(label), toks_(tokenize(text)) {
    for (const auto& [k, v] : c) given_[k] = v;
  }

  WgslReflection run(std::string_view entry) {
    scan(entry, true);  // module-scope declarations may be used before they appear
    return scan(entry, false);
  }

 private:
  // One pass over the module scope; `collect` only records structs, consts, overrides and aliases.
  WgslReflection scan(std::string_view entry, bool collect) {
    WgslReflection r;
    struct Attr {
      std::string name;
      size_t b = 0, e = 0;  // argument tokens [b, e)
    };
    std::vector<Attr> attrs;
    std::vector<std::pair<uint32_t, WgslBinding>> binds;
    std::vector<size_t> workgroup_types;
    std::optional<Attr> entry_wg;
    size_t i = 0;
    auto attr = [&](const char* n) -> const Attr* {
      for (const Attr& a : attrs)
        if (a.name == n) return &a;
      return nullptr;
    };
    while (i < toks_.size()) {
      const Tok& t = toks_[i];
      if (t.s == "@") {
        expect_ident(i + 1);
        Attr a{toks_[i + 1].s};
        i += 2;
        if (i < toks_.size() && toks_[i].s == "(") {
          a.b = i + 1;
          i = skip_group(i, "(", ")");
          a.e = i - 1;
        }
        attrs.push_back(a);
        continue;
      }
      if (t.kind == Tok::Ident && t.s == "struct") {
        expect_ident(i + 1);
        struct_at_[toks_[i + 1].s] = i + 2;
        i = skip_group(i + 2, "{", "}");
      } else if (t.s == "override" || t.s == "const") {
        expect_ident(i + 1);
        const std::string name = toks_[i + 1].s;
        size_t e = find(i, ";");
        size_t eq = i + 2;
        while (eq < e && toks_[eq].s != "=") ++eq;
        values_[name] = {eq < e ? eq + 1 : e, e};
        i = e + 1;
      } else if (t.s == "alias") {
        expect_ident(i + 1);
        size_t e = find(i, ";");
        aliases_[toks_[i + 1].s] = i + 3;
        i = e + 1;
      } else if (t.s == "var") {
        std::string space, access;
        size_t j = i + 1;
        if (j < toks_.size() && toks_[j].s == "<") {
          space = toks_.at(j + 1).s;
          if (toks_.at(j + 2).s == ",") access = toks_.at(j + 3).s;
          j = find(j, ">") + 1;
        }
        expect_ident(j);
        const std::string name = toks_[j].s;
        size_t type_at = j + 2;
        const Attr* g = attr("group");
        const Attr* bnd = attr("binding");
        if (collect) {
        } else if (g || bnd) {
          if (!g || !bnd) fail(fmt::format("variable '{}' needs both @group and @binding", name));
          if (eval_range(g->b, g->e) != 0)
            fail(fmt::format("binding '{}' is in @group({}); kernels use @group(0) only", name, eval_range(g->b, g->e)));
          WgslBinding wb;
          wb.index = uint32_t(eval_range(bnd->b, bnd->e));
          wb.name = name;
          if (space == "uniform") wb.type = BindingType::Uniform;
          else if (space == "storage") wb.type = access == "read_write" ? BindingType::Storage : BindingType::ReadOnlyStorage;
          else fail(fmt::format("binding '{}' has address space '{}' (storage or uniform expected)", name, space));
          size_t k = type_at;
          Layout l = parse_type(k);
          wb.type_name = l.text;
          if (wb.type == BindingType::Uniform) {
            if (!struct_at_.count(l.text)) fail(fmt::format("uniform binding '{}' must have a struct type, got {}", name, l.text));
            wb.layout = struct_layout(l.text);
          }
          binds.emplace_back(wb.index, std::move(wb));
        } else if (space == "workgroup") {
          workgroup_types.push_back(type_at);
        }
        i = find(i, ";") + 1;
      } else if (t.s == "fn") {
        expect_ident(i + 1);
        if (toks_[i + 1].s == entry) {
          if (const Attr* w = attr("workgroup_size")) entry_wg = *w;
        }
        size_t j = i + 2;
        while (j < toks_.size() && toks_[j].s != "{") ++j;
        i = skip_group(j, "{", "}");
      } else if (t.s == ";") {
        ++i;
      } else {
        i = find(i, ";") + 1;  // enable, requires, diagnostic, ...
      }
      attrs.clear();
    }

    if (collect) return r;
    std::sort(binds.begin(), binds.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t k = 0; k < binds.size(); ++k) {
      if (binds[k].first != k)
        fail(fmt::format("@binding({}) ('{}') leaves a gap or repeats a number: bindings must be 0..{}", binds[k].first,
                         binds[k].second.name, binds.size() - 1));
      r.bindings.push_back(std::move(binds[k].second));
    }
    if (entry_wg) {
      std::vector<double> dims = eval_list(entry_wg->b, entry_wg->e);
      if (dims.empty() || dims.size() > 3) fail("@workgroup_size needs 1 to 3 values");
      r.workgroup_size = {1, 1, 1};
      for (size_t k = 0; k < dims.size(); ++k) r.workgroup_size[k] = uint32_t(dims[k]);
    }
    for (const auto& [name, range] : values_) {
      try {
        r.values[name] = value(name);
      } catch (const InvalidArgument&) {  // not a number (a vector, a call we do not evaluate): not listed
        evaluating_.clear();
      }
    }
    for (size_t at : workgroup_types) {
      size_t k = at;
      r.workgroup_bytes += round_up(parse_type(k).size, 16);
    }
    return r;
  }

  [[noreturn]] void fail(const std::string& m) const {
    throw InvalidArgument(fmt::format("WGSL interface of {}: {}", label_, m));
  }
  void expect_ident(size_t i) const {
    if (i >= toks_.size() || toks_[i].kind != Tok::Ident)
      fail(fmt::format("expected a name after '{}'", i > 0 && i - 1 < toks_.size() ? toks_[i - 1].s : ""));
  }
  // Index of the first token `s` at or after i (at nesting depth 0 of () <> is not tracked: declarations only).
  size_t find(size_t i, const char* s) const {
    while (i < toks_.size() && toks_[i].s != s) ++i;
    if (i >= toks_.size()) fail(fmt::format("missing '{}'", s));
    return i;
  }
  // toks_[i] must be `open`; returns the index after its matching `close`.
  size_t skip_group(size_t i, const char* open, const char* close) const {
    if (i >= toks_.size() || toks_[i].s != open) fail(fmt::format("expected '{}'", open));
    int depth = 0;
    for (; i < toks_.size(); ++i) {
      if (toks_[i].s == open) ++depth;
      else if (toks_[i].s == close && --depth == 0) return i + 1;
    }
    fail(fmt::format("unbalanced '{}'", open));
  }

  // ---- integer/float expressions ----
  double eval_range(size_t b, size_t e) {
    size_t i = b;
    double v = expr(i, e);
    if (i != e) fail(fmt::format("cannot evaluate the expression at '{}'", toks_[i].s));
    return v;
  }
  std::vector<double> eval_list(size_t b, size_t e) {
    std::vector<double> out;
    size_t i = b;
    while (i < e) {
      out.push_back(expr(i, e));
      if (i < e && toks_[i].s == ",") ++i;
      else if (i < e) fail(fmt::format("cannot evaluate the expression at '{}'", toks_[i].s));
    }
    return out;
  }
  double expr(size_t& i, size_t e) {
    double v = term(i, e);
    while (i < e && (toks_[i].s == "+" || toks_[i].s == "-")) {
      bool add = toks_[i++].s == "+";
      double r = term(i, e);
      v = add ? v + r : v - r;
    }
    return v;
  }
  double term(size_t& i, size_t e) {
    double v = unary(i, e);
    while (i < e && (toks_[i].s == "*" || toks_[i].s == "/" || toks_[i].s == "%")) {
      char op = toks_[i++].s[0];
      double r = unary(i, e);
      if (op != '*' && r == 0) fail("division by zero in an expression");
      v = op == '*' ? v * r : op == '/' ? std::trunc(v / r) : std::fmod(v, r);
    }
    return v;
  }
  double unary(size_t& i, size_t e) {
    if (i < e && toks_[i].s == "-") return -unary(++i, e);
    return primary(i, e);
  }
  double primary(size_t& i, size_t e) {
    if (i >= e) fail("incomplete expression");
    const Tok& t = toks_[i++];
    if (t.s == "(") {
      double v = expr(i, e);
      if (i >= e || toks_[i].s != ")") fail("missing ')' in an expression");
      ++i;
      return v;
    }
    if (t.kind == Tok::Num) return number(t.s);
    if (t.kind == Tok::Ident && i < e && toks_[i].s == "(") {  // max, min, u32(...), i32(...), f32(...)
      size_t close = skip_group(i, "(", ")");
      std::vector<double> a = eval_list(i + 1, close - 1);
      i = close;
      if ((t.s == "max" || t.s == "min") && a.size() == 2) return t.s == "max" ? std::max(a[0], a[1]) : std::min(a[0], a[1]);
      if ((t.s == "u32" || t.s == "i32") && a.size() == 1) return std::trunc(a[0]);
      if (t.s == "f32" && a.size() == 1) return a[0];
      fail(fmt::format("cannot evaluate the call '{}(...)'", t.s));
    }
    if (t.kind == Tok::Ident) return value(t.s);
    fail(fmt::format("cannot evaluate the expression at '{}'", t.s));
  }
  double number(const std::string& s) const {
    std::string d = s;
    while (!d.empty() && (d.back() == 'u' || d.back() == 'i' || d.back() == 'f' || d.back() == 'h')) {
      if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X') && d.back() == 'f') break;  // hex digit f
      d.pop_back();
    }
    try {
      if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) return double(std::stoull(d.substr(2), nullptr, 16));
      return std::stod(d);
    } catch (const std::exception&) {
      fail(fmt::format("bad number '{}'", s));
    }
  }
  double value(const std::string& name) {
    if (auto g = given_.find(name); g != given_.end()) return g->second;
    auto it = values_.find(name);
    if (it == values_.end()) fail(fmt::format("'{}' is not a module-scope const or override", name));
    if (it->second.first >= it->second.second)
      fail(fmt::format("override '{}' has no default and the pipeline gives no value", name));
    if (!evaluating_.insert(name).second) fail(fmt::format("'{}' depends on itself", name));
    double v = eval_range(it->second.first, it->second.second);
    evaluating_.erase(name);
    return v;
  }

  // ---- types ----
  Layout parse_type(size_t& i) {
    expect_ident(i);
    const std::string name = toks_[i++].s;
    std::vector<Layout> targs;
    std::optional<double> count;
    if (i < toks_.size() && toks_[i].s == "<") {
      size_t close = skip_group(i, "<", ">");
      ++i;
      if (name == "array") {
        targs.push_back(parse_type(i));
        if (toks_[i].s == ",") count = eval_range(i + 1, close - 1);
      } else if (toks_[i].kind == Tok::Ident) {
        targs.push_back(parse_type(i));
      }
      i = close;
    }
    auto scalar = [](char c) -> uint32_t { return c == 'h' ? 2 : 4; };
    Layout l;
    if (name == "f32" || name == "i32" || name == "u32" || name == "bool") l = {4, 4, name};
    else if (name == "f16") l = {2, 2, name};
    else if (name == "atomic" && !targs.empty()) l = {targs[0].size, targs[0].align, "atomic<" + targs[0].text + ">"};
    else if (name.size() >= 4 && name.starts_with("vec") && name[3] >= '2' && name[3] <= '4') {
      uint32_t n = uint32_t(name[3] - '0');
      uint32_t s = targs.empty() ? scalar(name.size() > 4 ? name[4] : 'f') : targs[0].size;
      l = {n * s, (n == 3 ? 4 : n) * s, targs.empty() ? name : name + "<" + targs[0].text + ">"};
    } else if (name.size() >= 6 && name.starts_with("mat") && name[4] == 'x') {
      uint32_t c = uint32_t(name[3] - '0'), rr = uint32_t(name[5] - '0');
      uint32_t s = targs.empty() ? scalar(name.size() > 6 ? name[6] : 'f') : targs[0].size;
      uint32_t col_align = (rr == 3 ? 4 : rr) * s;
      l = {c * round_up(rr * s, col_align), col_align, targs.empty() ? name : name + "<" + targs[0].text + ">"};
    } else if (name == "array" && !targs.empty()) {
      const uint32_t stride = round_up(targs[0].size, targs[0].align);
      l = {count ? uint32_t(*count) * stride : 0, targs[0].align,
           count ? fmt::format("array<{}, {}>", targs[0].text, *count) : fmt::format("array<{}>", targs[0].text)};
    } else if (struct_at_.count(name)) {
      const WgslStruct& s = struct_layout(name);
      l = {s.size, s.align, name};
    } else if (auto a = aliases_.find(name); a != aliases_.end()) {
      size_t k = a->second;
      l = parse_type(k);
    } else {
      fail(fmt::format("unknown type '{}'", name));
    }
    return l;
  }

  const WgslStruct& struct_layout(const std::string& name) {
    if (auto it = structs_.find(name); it != structs_.end()) return it->second;
    if (!evaluating_.insert("struct " + name).second) fail(fmt::format("struct '{}' contains itself", name));
    WgslStruct s;
    s.name = name;
    s.align = 1;
    size_t i = struct_at_.at(name) + 1;  // after '{'
    uint32_t end = 0;
    while (i < toks_.size() && toks_[i].s != "}") {
      std::optional<uint32_t> align_attr, size_attr;
      while (toks_[i].s == "@") {
        const std::string a = toks_.at(i + 1).s;
        size_t close = skip_group(i + 2, "(", ")");
        double v = eval_range(i + 3, close - 1);
        if (a == "align") align_attr = uint32_t(v);
        else if (a == "size") size_attr = uint32_t(v);
        i = close;
      }
      expect_ident(i);
      WgslMember m;
      m.name = toks_[i].s;
      if (toks_.at(i + 1).s != ":") fail(fmt::format("struct '{}': expected ':' after member '{}'", name, m.name));
      i += 2;
      Layout l = parse_type(i);
      const uint32_t align = align_attr.value_or(l.align);
      m.type = l.text;
      m.offset = round_up(end, align);
      m.size = size_attr.value_or(l.size);
      end = m.offset + m.size;
      s.align = std::max(s.align, align);
      s.members.push_back(std::move(m));
      if (toks_.at(i).s == ",") ++i;
    }
    s.size = round_up(end, s.align);
    evaluating_.erase("struct " + name);
    return structs_.emplace(name, std::move(s)).first->second;
  }

  std::string label_;
  std::vector<Tok> toks_;
  std::map<std::string, double> given_;
  std::map<std::string, std::pair<size_t, size_t>> values_;  // const/override -> expression tokens
  std::map<std::string, size_t> struct_at_;                  // struct -> index of its '{'
  std::map<std::string, size_t> aliases_;                    // alias -> index of its type
  std::map<std::string, WgslStruct> structs_;
  std::set<std::string> evaluating_;
};

}  // namespace

WgslReflection reflect_wgsl(std::string_view label, std::string_view text, std::string_view entry,
                            const std::vector<std::pair<std::string, double>>& constants) {
  return Reflector(label, text, constants).run(entry);
}

}  // namespace wgrt::webgpu
