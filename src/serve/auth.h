// --api-key: the Authorization header check of wgrt serve.
#pragma once
#include <string>
#include <string_view>

namespace wgrt::serve {

// True when a == b, in time that depends only on the lengths (no early exit on the first differing byte).
bool constant_time_equal(std::string_view a, std::string_view b);

// True when `header` (the Authorization value) is "Bearer <key>" (scheme case-insensitive) with the key equal to
// `key` (compared in constant time). An empty `key` allows everything.
bool authorized(const std::string& header, const std::string& key);

}  // namespace wgrt::serve
