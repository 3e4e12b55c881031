#include "webgpu/shader_source.h"

#include <fmt/format.h>

#include <set>

#include "wgrt/error.h"

namespace wgrt::shaders {

std::string_view embedded(std::string_view path) {
  for (const auto& e : embedded_wgsl())
    if (path == e.path) return e.text;
  throw InvalidArgument(fmt::format("no embedded WGSL file '{}'", path));
}

std::string ExpandedSource::locate(int expanded_line) const {
  if (expanded_line >= 1 && size_t(expanded_line) <= lines.size()) {
    const auto& l = lines[size_t(expanded_line) - 1];
    return fmt::format("{}:{}", l.file, l.line);
  }
  return fmt::format("{}:{}", name, expanded_line);
}

namespace {

void append(ExpandedSource& out, std::string_view file, std::string_view text, std::set<std::string>& seen) {
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    std::string_view trimmed = line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
    if (trimmed.starts_with("#include")) {
      size_t q1 = trimmed.find('"'), q2 = trimmed.rfind('"');
      if (q1 == std::string_view::npos || q2 <= q1)
        throw InvalidArgument(fmt::format("{}:{}: malformed #include", file, line_no));
      std::string inc(trimmed.substr(q1 + 1, q2 - q1 - 1));
      if (seen.insert(inc).second) append(out, inc, embedded(inc), seen);
    } else {
      out.text.append(line);
      out.text.push_back('\n');
      out.lines.push_back({std::string(file), line_no});
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
}

}  // namespace

ExpandedSource expand_inline(std::string_view label, std::string_view text) {
  ExpandedSource out;
  out.name = std::string(label);
  std::set<std::string> seen{std::string(label)};
  append(out, label, text, seen);
  return out;
}

ExpandedSource expand(std::string_view path) { return expand_inline(path, embedded(path)); }

ExpandedSource expand(std::string_view path, std::span<const std::string> prelude) {
  ExpandedSource out;
  out.name = std::string(path);
  std::set<std::string> seen;
  for (const std::string& f : prelude)
    if (seen.insert(f).second) append(out, f, embedded(f), seen);
  if (seen.insert(std::string(path)).second) append(out, path, embedded(path), seen);
  return out;
}

}  // namespace wgrt::shaders
