#include "util/dispatch_grid.h"

#include <fmt/format.h>

#include <cmath>

#include "wgrt/error.h"

namespace wgrt {

Grid fold_grid(uint64_t count, uint32_t max_per_dim) {
  if (max_per_dim == 0) throw LimitError("fold_grid: maxComputeWorkgroupsPerDimension is 0");
  if (count == 0) return {0, 1, 1};
  if (count <= max_per_dim) return {uint32_t(count), 1, 1};
  uint64_t cap = uint64_t(max_per_dim) * max_per_dim;
  if (count > cap)
    throw LimitError(fmt::format("dispatch of {} workgroups exceeds the 2-D grid limit {} x {}", count, max_per_dim,
                                 max_per_dim));
  // Near-square: y = ceil(count / x) with x = ceil(sqrt(count)), clamped to the limit.
  uint64_t x = uint64_t(std::ceil(std::sqrt(double(count))));
  if (x > max_per_dim) x = max_per_dim;
  while (x * x < count && x < max_per_dim) ++x;  // guard against sqrt rounding
  uint64_t y = (count + x - 1) / x;
  return {uint32_t(x), uint32_t(y), 1};
}

}  // namespace wgrt
