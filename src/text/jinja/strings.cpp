// Python str operations (see strings.h).
#include "text/jinja/strings.h"

#include <algorithm>

namespace wgrt::text::jinja {
namespace {

char32_t up(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) || (c >= 0x430 && c <= 0x44F))
    return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}
char32_t low(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
    return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}
bool cased(char32_t c) { return up(c) != c || low(c) != c || (c >= 0xC0 && c != 0xD7 && c != 0xF7 && !is_py_space(c) && c > 0x2FF); }

template <class F>
std::string map_cp(const std::string& s, F f) {
  std::u32string u = decode(s);
  for (auto& c : u) c = f(c);
  return encode(u);
}

}  // namespace

std::string py_upper(const std::string& s) {
  std::string u = map_cp(s, up);
  return u.find("\xC3\x9F") == std::string::npos ? u : py_replace(u, "\xC3\x9F", "SS", -1);  // ß -> SS
}
std::string py_lower(const std::string& s) { return map_cp(s, low); }

std::string py_title(const std::string& s) {
  std::u32string u = decode(s);
  bool prev_cased = false;
  for (auto& c : u) {
    const bool is_cased = cased(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    c = prev_cased ? low(c) : up(c);
    prev_cased = is_cased;
  }
  return encode(u);
}

std::string py_capitalize(const std::string& s) {
  std::u32string u = decode(s);
  for (size_t k = 0; k < u.size(); ++k) u[k] = k == 0 ? up(u[k]) : low(u[k]);
  return encode(u);
}

std::string py_strip(const std::string& s, const Value& chars, char which) {
  std::u32string u = decode(s), set;
  const bool ws = chars.is_none() || chars.is_undefined();
  if (!ws) {
    if (!chars.is_string()) throw RenderError(std::string("strip arg must be None or str, not '") + type_name(chars) + "'");
    set = decode(chars.s);
  }
  auto drop = [&](char32_t c) { return ws ? is_py_space(c) : set.find(c) != std::u32string::npos; };
  size_t b = 0, e = u.size();
  if (which != 'r')
    while (b < e && drop(u[b])) ++b;
  if (which != 'l')
    while (e > b && drop(u[e - 1])) --e;
  return encode(u.substr(b, e - b));
}

std::vector<std::string> py_split(const std::string& s, const Value& sep, int64_t maxsplit, bool from_right) {
  std::vector<std::string> out;
  if (sep.is_none() || sep.is_undefined()) {
    std::u32string u = decode(s);
    if (from_right) std::reverse(u.begin(), u.end());
    size_t k = 0;
    while (k < u.size()) {
      while (k < u.size() && is_py_space(u[k])) ++k;
      if (k >= u.size()) break;
      if (maxsplit >= 0 && int64_t(out.size()) == maxsplit) {
        size_t e = u.size();
        while (e > k && is_py_space(u[e - 1])) --e;
        out.push_back(encode(u.substr(k, e - k)));
        break;
      }
      size_t e = k;
      while (e < u.size() && !is_py_space(u[e])) ++e;
      out.push_back(encode(u.substr(k, e - k)));
      k = e;
    }
    if (from_right) {
      for (auto& w : out) {
        std::u32string x = decode(w);
        std::reverse(x.begin(), x.end());
        w = encode(x);
      }
      std::reverse(out.begin(), out.end());
    }
    return out;
  }
  if (!sep.is_string()) throw RenderError(std::string("must be str or None, not ") + type_name(sep));
  if (sep.s.empty()) throw RenderError("empty separator");
  if (!from_right) {
    size_t k = 0;
    for (;;) {
      size_t f = (maxsplit >= 0 && int64_t(out.size()) >= maxsplit) ? std::string::npos : s.find(sep.s, k);
      if (f == std::string::npos) {
        out.push_back(s.substr(k));
        return out;
      }
      out.push_back(s.substr(k, f - k));
      k = f + sep.s.size();
    }
  }
  size_t e = s.size();
  for (;;) {
    size_t f = (maxsplit >= 0 && int64_t(out.size()) >= maxsplit) || e < sep.s.size()
                   ? std::string::npos
                   : s.rfind(sep.s, e - sep.s.size());
    if (f == std::string::npos) {
      out.push_back(s.substr(0, e));
      break;
    }
    out.push_back(s.substr(f + sep.s.size(), e - f - sep.s.size()));
    e = f;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string py_replace(const std::string& s, const std::string& old, const std::string& repl, int64_t count) {
  std::string out;
  int64_t n = 0;
  if (old.empty()) {  // Python inserts repl before every code point and at the end
    std::u32string u = decode(s);
    for (char32_t c : u) {
      if (count < 0 || n < count) out += repl, ++n;
      out += encode(std::u32string(1, c));
    }
    if (count < 0 || n < count) out += repl;
    return out;
  }
  size_t k = 0;
  for (;;) {
    size_t f = count >= 0 && n >= count ? std::string::npos : s.find(old, k);
    if (f == std::string::npos) break;
    out.append(s, k, f - k);
    out += repl;
    k = f + old.size();
    ++n;
  }
  out.append(s, k, std::string::npos);
  return out;
}

std::vector<std::string> py_splitlines(const std::string& s) {
  std::vector<std::string> out;
  std::u32string u = decode(s), cur;
  for (size_t k = 0; k < u.size(); ++k) {
    char32_t c = u[k];
    if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x1c || c == 0x1d || c == 0x1e || c == 0x85 ||
        c == 0x2028 || c == 0x2029) {
      if (c == '\r' && k + 1 < u.size() && u[k + 1] == '\n') ++k;
      out.push_back(encode(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(encode(cur));
  return out;
}

std::string py_format(const std::string& fmt, const Args& a) {
  std::string out;
  size_t auto_idx = 0;
  for (size_t k = 0; k < fmt.size(); ++k) {
    char c = fmt[k];
    if (c == '}') {
      if (k + 1 < fmt.size() && fmt[k + 1] == '}') ++k, out += '}';
      else throw RenderError("single '}' encountered in format string");
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (k + 1 < fmt.size() && fmt[k + 1] == '{') {
      ++k, out += '{';
      continue;
    }
    size_t e = fmt.find('}', k);
    if (e == std::string::npos) throw RenderError("single '{' encountered in format string");
    std::string field = fmt.substr(k + 1, e - k - 1);
    if (field.find_first_of(":!.[") != std::string::npos)
      throw RenderError("format specs and conversions in str.format are not supported");
    const Value* v = nullptr;
    if (field.empty()) {
      if (auto_idx >= a.pos.size()) throw RenderError("str.format: replacement index out of range");
      v = &a.pos[auto_idx++];
    } else if (std::all_of(field.begin(), field.end(), [](char d) { return d >= '0' && d <= '9'; })) {
      int64_t idx = 0;
      if (!parse_int64(field, &idx) || size_t(idx) >= a.pos.size()) throw RenderError("str.format: replacement index out of range");
      v = &a.pos[size_t(idx)];
    } else {
      for (const auto& [n, x] : a.kw)
        if (n == field) v = &x;
      if (!v) throw RenderError("str.format: no argument named '" + field + "'");
    }
    out += to_str(*v);
    k = e;
  }
  return out;
}

}  // namespace wgrt::text::jinja
