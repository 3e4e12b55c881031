// Dispatch-grid folding: exact grids at and around the 65,535 limit, and beyond it.
#include <gtest/gtest.h>

#include "util/dispatch_grid.h"
#include "wgrt/error.h"

using wgrt::fold_grid;
using wgrt::Grid;

TEST(DispatchGrid, SmallCountsStayOneDimensional) {
  EXPECT_EQ(fold_grid(0, 65535), (Grid{0, 1, 1}));
  EXPECT_EQ(fold_grid(1, 65535), (Grid{1, 1, 1}));
  EXPECT_EQ(fold_grid(65535, 65535), (Grid{65535, 1, 1}));
}

TEST(DispatchGrid, FoldsJustAboveTheLimit) {
  Grid g = fold_grid(65536, 65535);
  EXPECT_LE(g.x, 65535u);
  EXPECT_LE(g.y, 65535u);
  EXPECT_GE(g.total(), 65536u);
  EXPECT_EQ(g.x, 256u);  // near-square: ceil(sqrt(65536)) = 256
  EXPECT_EQ(g.y, 256u);
}

TEST(DispatchGrid, CoversEveryCountWithLittleWaste) {
  for (uint64_t n : {65536ull, 65537ull, 100000ull, 1000003ull, 4294836225ull /* 65535^2 */}) {
    Grid g = fold_grid(n, 65535);
    EXPECT_GE(g.total(), n) << n;
    EXPECT_LE(g.x, 65535u);
    EXPECT_LE(g.y, 65535u);
    // At most one partial row of waste.
    EXPECT_LT(g.total() - n, uint64_t(g.x)) << n;
  }
}

TEST(DispatchGrid, SmallLimitsAndOverflow) {
  EXPECT_THROW(fold_grid(17, 4), wgrt::LimitError);  // 4 x 4 = 16 < 17
  EXPECT_EQ(fold_grid(16, 4), (Grid{4, 4, 1}));
  EXPECT_THROW(fold_grid(uint64_t(65535) * 65535 + 1, 65535), wgrt::LimitError);
  EXPECT_THROW(fold_grid(1, 0), wgrt::LimitError);
}
