// Small UTF-8 helpers shared by the tokenizers (no validation beyond what each function states).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wgrt::text {

// Length in bytes of the UTF-8 sequence announced by lead byte `c`, as llama.cpp's unicode_len_utf8: 1 for ASCII
// and for bytes that cannot start a sequence (continuation bytes 0x80..0xBF), 2 for 0xC0..0xDF, 3 for 0xE0..0xEF,
// 4 for 0xF0..0xFF. Callers clamp to the bytes left; no check that continuation bytes follow.
inline std::size_t utf8_seq_len(unsigned char c) {
  static constexpr std::size_t kLut[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLut[c >> 4];
}

// Appends code point `cp` (must be <= 0x10FFFF) encoded as UTF-8.
inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// If `piece` is exactly "<0xHH>" (two hex digits, either case), stores the byte value and returns true.
inline bool parse_byte_piece(std::string_view piece, unsigned char* byte) {
  if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>') return false;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const int hi = hex(piece[3]), lo = hex(piece[4]);
  if (hi < 0 || lo < 0) return false;
  *byte = static_cast<unsigned char>(hi * 16 + lo);
  return true;
}

// SentencePiece's escaped space U+2581 "▁", and the text with it put in for ' ' / taken out again.
inline constexpr std::string_view kEscapedSpace = "\xE2\x96\x81";
inline std::string escape_spaces(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  for (char c : s) {
    if (c == ' ') out += kEscapedSpace;
    else out.push_back(c);
  }
  return out;
}
inline std::string unescape_spaces(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, kEscapedSpace.size(), kEscapedSpace) == 0) {
      out.push_back(' ');
      i += kEscapedSpace.size();
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

}  // namespace wgrt::text
