// Text taken from a file or the command line, made safe to put inside an error message: one line, no
// terminal control sequences, bounded length. Every message that quotes a string read from an input file
// (GGUF keys, string values, tensor names, tokenizer pieces) or an argument passes it through printable().
//
// Rules: bytes 0x00-0x1F and 0x7F, the C1 controls U+0080-U+009F, and bytes that are not part of well-formed
// UTF-8 are written as \xNN (two lower-case hex digits); a backslash is written as "\\" so the escapes are
// unambiguous; other text (valid UTF-8) is kept. At most `max_bytes` bytes of the input are shown (cut at
// a character boundary), followed by "... (N bytes)" when the input was longer. Never throws.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace wgrt {

constexpr size_t kPrintableMax = 120;

std::string printable(std::string_view s, size_t max_bytes = kPrintableMax);

// A whole error message for one output line: control characters (newlines included) and invalid UTF-8 as
// \xNN, backslashes kept as they are (the message's own quoted parts went through printable() already),
// capped at `max_bytes` bytes.
std::string one_line_message(std::string_view s, size_t max_bytes = 2000);

}  // namespace wgrt
