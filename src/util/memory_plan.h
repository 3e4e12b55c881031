// Memory planning (device-free): intermediates whose lifetimes do not overlap share one buffer.
//
// Each request is a tensor's byte size and the [first, last] node indices where it is used. Greedy
// interval colouring in order of first use: a request takes the smallest free slot that fits, else grows
// the largest free slot, else opens a new slot. Slots are freed after the last use of their tensor.
#pragma once
#include <cstdint>
#include <vector>

namespace wgrt {

struct LifetimeRequest {
  uint64_t bytes = 0;
  int first = 0, last = 0;  // inclusive node indices
};

struct MemoryPlan {
  std::vector<int> slot_of;          // per request
  std::vector<uint64_t> slot_bytes;  // per slot
  uint64_t requested_bytes = 0;      // sum of request sizes (what one buffer per tensor would take)
  uint64_t planned_bytes = 0;        // sum of slot sizes
};

MemoryPlan plan_memory(const std::vector<LifetimeRequest>& requests);

}  // namespace wgrt
