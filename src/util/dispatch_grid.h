// Dispatch-grid folding (device-free): WebGPU limits each dimension of a dispatch to
// maxComputeWorkgroupsPerDimension (65,535 by default). A 1-D workgroup count above it is folded into a
// near-square 2-D grid (x * y >= count, both <= the limit, as few extra workgroups as possible); shaders
// recover the linear workgroup index as `wid.y * num_workgroups.x + wid.x` and return when it is >= count.
#pragma once
#include <cstdint>

namespace wgrt {

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t total() const { return uint64_t(x) * y * z; }
  bool operator==(const Grid&) const = default;
};

// Throws LimitError if count exceeds max_per_dim^2 (no 2-D grid can hold it); count 0 gives {0,1,1}.
Grid fold_grid(uint64_t count, uint32_t max_per_dim);

// Workgroups needed to cover `items` with `per_workgroup` items each (ceil division, per_workgroup > 0).
constexpr uint64_t div_up(uint64_t items, uint64_t per_workgroup) { return (items + per_workgroup - 1) / per_workgroup; }

}  // namespace wgrt
