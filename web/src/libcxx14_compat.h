// Force-included into every file of the browser build (web/CMakeLists.txt): fills gaps of Debian
// Emscripten 3.1.6's libc++ 14 so that src/ compiles unchanged. Each entry is what C++20 specifies; remove
// an entry when the toolchain provides it (emscripten >= 3.1.2x ships libc++ 15+).
#pragma once
#include <version>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#if !defined(__cpp_lib_bit_cast)
namespace std {
// C++20 std::bit_cast ([bit.cast]); libc++ 14 declares it only from version 15 on.
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif

#if !defined(__cpp_lib_to_chars)
namespace std {
// C++17 std::to_chars for double, shortest round-trip form ([charconv.to.chars]/2); libc++ 14 has only the
// integer overloads. The fewest significant digits (1..17) whose correctly rounded printf rendering reads back
// as `v` are the digits to_chars gives. Formats: scientific ("%.*e") and general ("%.*g"); fixed is not needed
// by src/ (add it here if it becomes so).
inline to_chars_result to_chars(char* first, char* last, double v, chars_format fmt) {
  char buf[64];
  int n = 0;
  for (int digits = 1; digits <= 17; ++digits) {
    n = std::snprintf(buf, sizeof buf, fmt == chars_format::scientific ? "%.*e" : "%.*g",
                      fmt == chars_format::scientific ? digits - 1 : digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  if (n > last - first) return {last, errc::value_too_large};
  for (int i = 0; i < n; ++i) first[i] = buf[i];
  return {first + n, errc{}};
}
}  // namespace std
#endif
