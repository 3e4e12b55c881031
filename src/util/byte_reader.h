// Bounds-checked little-endian reader over an in-memory byte span (used by the model-file parsers).
// Every read checks the remaining length first and throws FormatError("<what>: truncated ...") naming the
// context string (usually the file path) and the offset; nothing is read out of bounds.
// Assumes a little-endian host (x86-64, AArch64), checked at compile time.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <wgrt/error.h>

static_assert(std::endian::native == std::endian::little, "wgrt's file readers assume a little-endian host");

namespace wgrt {

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> bytes, std::string context) : bytes_(bytes), ctx_(std::move(context)) {}

  size_t offset() const { return pos_; }
  size_t size() const { return bytes_.size(); }
  size_t remaining() const { return bytes_.size() - pos_; }
  const std::string& context() const { return ctx_; }

  // Throws FormatError unless n more bytes are available; `what` names the field being read.
  void need(uint64_t n, std::string_view what) const {
    if (n > remaining())
      throw FormatError(ctx_ + ": truncated while reading " + std::string(what) + " at offset " +
                        std::to_string(pos_) + " (need " + std::to_string(n) + " bytes, " +
                        std::to_string(remaining()) + " left)");
  }

  template <class T>
  T read(std::string_view what) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  std::span<const uint8_t> read_bytes(uint64_t n, std::string_view what) {
    need(n, what);
    auto s = bytes_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }

  std::string read_string(uint64_t n, std::string_view what) {
    auto s = read_bytes(n, what);
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  }

  void seek(size_t pos, std::string_view what) {
    if (pos > bytes_.size())
      throw FormatError(ctx_ + ": " + std::string(what) + " offset " + std::to_string(pos) +
                        " is past the end of the data (" + std::to_string(bytes_.size()) + " bytes)");
    pos_ = pos;
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string ctx_;
  size_t pos_ = 0;
};

// a*b with overflow check; throws FormatError(context + ": " + what + " overflows").
inline uint64_t checked_mul(uint64_t a, uint64_t b, const std::string& context, std::string_view what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw FormatError(context + ": " + std::string(what) + " overflows");
  return r;
}
inline uint64_t checked_add(uint64_t a, uint64_t b, const std::string& context, std::string_view what) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw FormatError(context + ": " + std::string(what) + " overflows");
  return r;
}

}  // namespace wgrt
