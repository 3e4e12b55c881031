// wgrt.swiglu.default against a double-precision reference: out = silu(gate) * up, including large |gate|
// (no overflow in the sigmoid), odd H and changing rows. Tolerance 1e-6 abs + 1e-5 rel.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;

TEST(Swiglu, MatchesReferenceOnOddShapes) {
  const int64_t H = 37;
  Graph g;
  ValueId x = g.input("x", DType::F32, {5, 2 * H});
  ValueId y = g.tensor(DType::F32, {5, H});
  g.op("wgrt.swiglu.default", {x, y});
  g.output(y);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  for (int64_t rows : {5, 1, 3}) {
    std::vector<float> xv(size_t(rows * 2 * H));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float((int(i * 7919) % 401) - 200) * 0.05f;  // [-10, 10]
    xv[0] = 100.0f;
    xv[1] = -100.0f;
    exe->set_input(x, {rows, 2 * H}, std::span<const float>(xv));
    exe->execute();
    ASSERT_EQ(exe->dims(y), (Dims{rows, H}));
    auto out = exe->read_f32(y);
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t c = 0; c < H; ++c) {
        double gt = xv[size_t(m * 2 * H + c)], up = xv[size_t(m * 2 * H + H + c)];
        double e = gt / (1.0 + std::exp(-gt)) * up;
        EXPECT_NEAR(out[size_t(m * H + c)], e, 1e-6 + 1e-5 * std::fabs(e)) << m << "," << c;
      }
  }
}

TEST(Swiglu, OddLastDimIsAnError) {
  Graph g;
  ValueId x = g.input("x", DType::F32, {2, 7});
  g.op("wgrt.swiglu.default", {x, g.tensor(DType::F32, {2, 3})}, "bad_swiglu");
  EXPECT_THROW(ExecutableGraph::build(std::move(g), gpu()), InvalidArgument);
}
