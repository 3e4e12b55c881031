#include "formats/model_file_kind.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "util/mapped_file.h"
#include "util/printable.h"
#include "wgrt/error.h"

namespace wgrt {

namespace {

std::string head_bytes(const std::string& path, size_t n) {
  require_regular_file(path, "model file");  // a FIFO would block the open below forever
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(fmt::format("cannot open model file '{}': {}", printable(path, 300), std::strerror(errno)));
  std::string s(n, '\0');
  f.read(s.data(), std::streamsize(n));
  s.resize(size_t(f.gcount()));
  return s;
}

}  // namespace

ModelFileKind model_file_kind(const std::string& path) {
  const std::string magic = head_bytes(path, 4);
  if (magic == "GGUF") return ModelFileKind::Gguf;
  std::string ext = path.size() >= 5 ? path.substr(path.size() - 5) : "";
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".gguf") {
    std::string what = magic.empty() ? "the file is empty" : "it starts with";
    for (unsigned char c : magic) what += fmt::format(" {:02x}", c);
    if (!magic.empty() && magic.size() < 4) what += fmt::format(" (file has {} byte{})", magic.size(), magic.size() == 1 ? "" : "s");
    throw FormatError(fmt::format("GGUF file '{}': {}, expected the magic 'GGUF' (47 47 55 46); a llama2.c "
                                  "checkpoint must not be named .gguf",
                                  printable(path, 300), what));
  }
  return ModelFileKind::Llama2c;
}

std::string not_a_model_message(const std::string& path, const std::string& detail) {
  const std::string head = head_bytes(path, 64);
  bool text = !head.empty();
  for (unsigned char c : head) text = text && (c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80);
  return fmt::format("'{}' is not a model file: it is not GGUF (no 'GGUF' magic){} and not a llama2.c checkpoint ({})",
                     printable(path, 300), text ? ", it looks like text," : "", detail);
}

}  // namespace wgrt
