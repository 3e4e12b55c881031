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

// WGSL wants its directives (enable, requires, diagnostic) ahead of every declaration, while a prelude or an
// include can put declarations first: moves each directive line to the front, in order, with its line origin.
void hoist_directives(ExpandedSource& out) {
  std::vector<std::string_view> rows;
  for (size_t pos = 0; pos < out.text.size();) {
    const size_t end = out.text.find('\n', pos);
    rows.push_back(std::string_view(out.text).substr(pos, end - pos));
    pos = end + 1;
  }
  auto directive = [](std::string_view l) {
    l.remove_prefix(std::min(l.find_first_not_of(" \t"), l.size()));
    return l.starts_with("enable ") || l.starts_with("requires ") || l.starts_with("diagnostic(") ||
           l.starts_with("diagnostic (");
  };
  std::vector<size_t> order;
  for (size_t i = 0; i < rows.size(); ++i)
    if (directive(rows[i])) order.push_back(i);
  if (order.empty() || order.back() + 1 == order.size()) return;  // none, or all already in front
  for (size_t i = 0; i < rows.size(); ++i)
    if (!directive(rows[i])) order.push_back(i);
  std::string text;
  std::vector<SourceLine> lines;
  for (size_t i : order) {
    text.append(rows[i]);
    text.push_back('\n');
    lines.push_back(out.lines[i]);
  }
  out.text = std::move(text);
  out.lines = std::move(lines);
}

}  // namespace

ExpandedSource expand_inline(std::string_view label, std::string_view text) {
  ExpandedSource out;
  out.name = std::string(label);
  std::set<std::string> seen{std::string(label)};
  append(out, label, text, seen);
  hoist_directives(out);
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
  hoist_directives(out);
  return out;
}

}  // namespace wgrt::shaders
