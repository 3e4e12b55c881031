// WGSL sources embedded at build time (cmake/EmbedWgsl.cmake) and a tiny include expander.
//
// Every .wgsl file under src/ is compiled into the binary and looked up by its path relative to src/,
// e.g. "ops/norm/rms_norm.wgsl". A line of the form `#include "common/x.wgsl"` is replaced by that file's
// text (recursively, each file at most once). Because WGSL has no preprocessor, the expander keeps a line
// map so a compile error is reported at the original file and line. Directive lines (enable, requires,
// diagnostic) move to the front of the expanded text, which WGSL requires, wherever a prelude or include put them.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::shaders {

struct EmbeddedWgsl {
  const char* path;  // relative to src/
  const char* text;
};

// The generated table (defined in the build's generated/wgsl_registry.cpp).
std::span<const EmbeddedWgsl> embedded_wgsl();

// Where a line of an expanded source came from.
struct SourceLine {
  std::string file;
  int line = 0;  // 1-based
};

struct ExpandedSource {
  std::string name;  // the top-level file, or a caller-given label for inline sources
  std::string text;
  std::vector<SourceLine> lines;  // lines[i] is the origin of expanded line i+1
  // Maps a 1-based line of `text` back to "file:line".
  std::string locate(int expanded_line) const;
};

// Text of an embedded file, without include expansion. Throws InvalidArgument for an unknown path.
std::string_view embedded(std::string_view path);

// Expanded embedded file. Throws InvalidArgument for an unknown path or an include cycle.
ExpandedSource expand(std::string_view path);

// As above with the files `prelude` expanded first (each at most once, like an include): a type variant of the
// kernel (KernelSpec::prelude). The result is named `path`. Throws InvalidArgument for an unknown file or a cycle.
ExpandedSource expand(std::string_view path, std::span<const std::string> prelude);

// Expands includes inside caller-provided source text (e.g. a test kernel); `label` names it in errors.
ExpandedSource expand_inline(std::string_view label, std::string_view text);

}  // namespace wgrt::shaders
