// Constant-time API-key check (auth.h).
#include "serve/auth.h"

#include <strings.h>

namespace wgrt::serve {

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Every byte of the longer string is visited; the length difference is folded into the result.
  const size_t n = std::max(a.size(), b.size());
  volatile unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff = diff | static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

bool authorized(const std::string& header, const std::string& key) {
  if (key.empty()) return true;
  constexpr std::string_view scheme = "bearer ";
  if (header.size() < scheme.size() || strncasecmp(header.c_str(), scheme.data(), scheme.size()) != 0) return false;
  std::string_view given(header);
  given.remove_prefix(scheme.size());
  while (!given.empty() && given.front() == ' ') given.remove_prefix(1);
  return constant_time_equal(given, key);
}

}  // namespace wgrt::serve
