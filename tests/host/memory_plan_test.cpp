// Memory planning: disjoint lifetimes share, overlapping ones never do.
#include <gtest/gtest.h>

#include "util/memory_plan.h"

using wgrt::LifetimeRequest;
using wgrt::plan_memory;

TEST(MemoryPlan, ChainUsesTwoSlots) {
  std::vector<LifetimeRequest> r;
  for (int i = 0; i < 10; ++i) r.push_back({100, i, i + 1});
  auto p = plan_memory(r);
  EXPECT_EQ(p.slot_bytes.size(), 2u);
  EXPECT_EQ(p.requested_bytes, 1000u);
  EXPECT_EQ(p.planned_bytes, 200u);
}

TEST(MemoryPlan, OverlappingNeverShare) {
  std::vector<LifetimeRequest> r = {{10, 0, 5}, {20, 1, 3}, {30, 2, 2}, {40, 4, 6}, {5, 6, 7}};
  auto p = plan_memory(r);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_GE(p.slot_bytes[size_t(p.slot_of[i])], r[i].bytes);
    for (size_t j = i + 1; j < r.size(); ++j) {
      bool overlap = !(r[i].last < r[j].first || r[j].last < r[i].first);
      if (overlap) EXPECT_NE(p.slot_of[i], p.slot_of[j]) << i << "," << j;
    }
  }
  EXPECT_LE(p.planned_bytes, p.requested_bytes);
}

TEST(MemoryPlan, PrefersSmallestFittingSlot) {
  // Slots of 100 and 10 are free when a 10-byte tensor arrives: it must take the 10-byte slot.
  std::vector<LifetimeRequest> r = {{100, 0, 0}, {10, 0, 0}, {10, 1, 1}, {100, 1, 1}};
  auto p = plan_memory(r);
  EXPECT_EQ(p.slot_of[2], p.slot_of[1]);
  EXPECT_EQ(p.slot_of[3], p.slot_of[0]);
  EXPECT_EQ(p.planned_bytes, 110u);
}
