#include "util/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace wgrt {

MemoryPlan plan_memory(const std::vector<LifetimeRequest>& req) {
  MemoryPlan p;
  p.slot_of.assign(req.size(), -1);
  std::vector<size_t> order(req.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return req[a].first < req[b].first; });
  std::vector<int> busy_until;  // per slot: last node index of its current tensor
  for (size_t r : order) {
    const LifetimeRequest& q = req[r];
    p.requested_bytes += q.bytes;
    int best = -1, largest = -1;
    for (size_t s = 0; s < p.slot_bytes.size(); ++s) {
      if (busy_until[s] >= q.first) continue;  // still live
      if (p.slot_bytes[s] >= q.bytes && (best < 0 || p.slot_bytes[s] < p.slot_bytes[size_t(best)])) best = int(s);
      if (largest < 0 || p.slot_bytes[s] > p.slot_bytes[size_t(largest)]) largest = int(s);
    }
    int slot = best >= 0 ? best : largest;
    if (slot < 0) {
      slot = int(p.slot_bytes.size());
      p.slot_bytes.push_back(0);
      busy_until.push_back(-1);
    }
    p.slot_bytes[size_t(slot)] = std::max(p.slot_bytes[size_t(slot)], q.bytes);
    busy_until[size_t(slot)] = q.last;
    p.slot_of[r] = slot;
  }
  p.planned_bytes = std::accumulate(p.slot_bytes.begin(), p.slot_bytes.end(), uint64_t(0));
  return p;
}

}  // namespace wgrt
