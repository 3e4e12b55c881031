#include "ops/rope/rope_tables.h"

#include <fmt/format.h>

#include <cmath>

#include "wgrt/error.h"

namespace wgrt::ops {

RopeTables rope_tables(int64_t c_max, int64_t head_dim, double theta) {
  if (head_dim <= 0 || head_dim % 2 != 0) throw InvalidArgument(fmt::format("rope_tables: head dim {} must be even and > 0", head_dim));
  if (c_max <= 0) throw InvalidArgument(fmt::format("rope_tables: context {} must be > 0", c_max));
  if (!(theta > 0)) throw InvalidArgument(fmt::format("rope_tables: theta {} must be > 0", theta));
  const int64_t half = head_dim / 2;
  if (c_max > (int64_t(1) << 28) / half) throw InvalidArgument(fmt::format("rope_tables: {} x {} table is too large", c_max, half));
  RopeTables t;
  t.cos.resize(size_t(c_max * half));
  t.sin.resize(size_t(c_max * half));
  for (int64_t i = 0; i < half; ++i) {
    const double freq = std::pow(theta, -2.0 * double(i) / double(head_dim));
    for (int64_t p = 0; p < c_max; ++p) {
      const double a = double(p) * freq;
      t.cos[size_t(p * half + i)] = float(std::cos(a));
      t.sin[size_t(p * half + i)] = float(std::sin(a));
    }
  }
  return t;
}

}  // namespace wgrt::ops
