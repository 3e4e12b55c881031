#include "ops/elementwise/broadcast.h"

#include <algorithm>

namespace wgrt::ops {

std::optional<Dims> broadcast_shape(const Dims& a, const Dims& b) {
  size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t k = 0; k < r; ++k) {
    int64_t x = k < r - a.size() ? 1 : a[k - (r - a.size())];
    int64_t y = k < r - b.size() ? 1 : b[k - (r - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = (x == 1) ? y : x;
  }
  return out;
}

std::vector<uint32_t> broadcast_strides(const Dims& in, const Dims& out) {
  std::vector<uint32_t> s(out.size(), 0);
  uint64_t stride = 1;
  for (size_t j = in.size(); j-- > 0;) {
    size_t k = j + (out.size() - in.size());
    s[k] = in[j] == 1 ? 0 : uint32_t(stride);
    stride *= uint64_t(in[j]);
  }
  return s;
}

void collapse_broadcast(Dims& out, std::vector<uint32_t>& sa, std::vector<uint32_t>& sb) {
  Dims d;
  std::vector<uint32_t> a, b;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 1) continue;
    if (!d.empty()) {
      const bool a_ok = (a.back() == 0 && sa[k] == 0) || (a.back() != 0 && sa[k] != 0 && uint64_t(a.back()) == uint64_t(sa[k]) * uint64_t(out[k]));
      const bool b_ok = (b.back() == 0 && sb[k] == 0) || (b.back() != 0 && sb[k] != 0 && uint64_t(b.back()) == uint64_t(sb[k]) * uint64_t(out[k]));
      if (a_ok && b_ok) {
        d.back() *= out[k];
        a.back() = sa[k];
        b.back() = sb[k];
        continue;
      }
    }
    d.push_back(out[k]);
    a.push_back(sa[k]);
    b.push_back(sb[k]);
  }
  if (d.empty()) {
    d = {1};
    a = {0};
    b = {0};
  }
  out = std::move(d);
  sa = std::move(a);
  sb = std::move(b);
}

}  // namespace wgrt::ops
