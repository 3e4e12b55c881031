// max_pool2d_with_indices (values only) and avg_pool2d against the double reference and PyTorch goldens:
// odd sizes, padding at the borders, ceil_mode, dilation, count_include_pad, divisor_override, NaN
// propagation, 3-D input, live sizes, folded grid, bad arguments. Max pool is exact; avg |d| <= 1e-6 + 1e-5 |ref|.
#include <cmath>

#include "reference/ops_a_reference.h"
#include "reference/vision_ref.h"
#include "vision_test_util.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::jdims;
using wgrt::test::jfloats;
using wgrt::test::OneOp;
namespace vref = wgrt::test::vref;
namespace ref = wgrt::test::ref;

namespace {

std::unique_ptr<OneOp> make_pool(bool max, Dims xmax, const vref::Pool2d& p) {
  auto o = std::make_unique<OneOp>();
  ValueId x = o->input(xmax, {});
  Graph& g = o->g;
  if (max)
    o->build("aten.max_pool2d_with_indices.default", {x, g.int_list({p.kh, p.kw}), g.int_list({p.sh, p.sw}),
                                                      g.int_list({p.ph, p.pw}), g.int_list({p.dh, p.dw}), g.boolean(p.ceil_mode)});
  else
    o->build("aten.avg_pool2d.default", {x, g.int_list({p.kh, p.kw}), g.int_list({p.sh, p.sw}), g.int_list({p.ph, p.pw}),
                                         g.boolean(p.ceil_mode), g.boolean(p.count_include_pad),
                                         p.divisor ? g.int_value(p.divisor) : g.none()});
  return o;
}

}  // namespace

TEST(Pool2d, AgainstReferenceOddSizesAndModes) {
  uint32_t seed = 1;
  for (vref::Pool2d p : {vref::Pool2d{6, 9, 8, 3, 3, 2, 2, 1, 1}, vref::Pool2d{2, 7, 7, 2, 2, 2, 2, 0, 0, 1, 1, true},
                         vref::Pool2d{3, 10, 11, 3, 2, 3, 1, 1, 1, 1, 1, true, false},
                         vref::Pool2d{1, 13, 5, 5, 3, 2, 2, 2, 1, 1, 1, false, true, 7},
                         vref::Pool2d{4, 5, 6, 1, 1, 1, 1}}) {
    auto x = ref::random_floats(size_t(p.planes * p.H * p.W), seed++);
    for (bool max : {true, false}) {
      if (max && p.divisor) continue;
      auto o = make_pool(max, {1, p.planes, p.H, p.W}, p);
      auto got = o->run({1, p.planes, p.H, p.W}, x);
      EXPECT_EQ(o->out_dims(), (Dims{1, p.planes, p.OH(), p.OW()}));
      expect_close(got, max ? vref::max_pool2d(p, x) : vref::avg_pool2d(p, x), max ? 0.0 : 1e-6, max ? 0.0 : 1e-5,
                   fmt::format("{} pool {}x{} k{}x{} s{},{} p{},{} ceil {}", max ? "max" : "avg", p.H, p.W, p.kh, p.kw,
                               p.sh, p.sw, p.ph, p.pw, p.ceil_mode));
    }
  }
}

TEST(Pool2d, DilatedMaxPoolThreeDimInputAndLiveSizes) {
  vref::Pool2d p{3, 12, 12, 3, 3, 1, 1, 2, 2, 2, 2};
  auto o = make_pool(true, {3, 12, 12}, p);
  for (int64_t h : {12, 7, 5}) {
    vref::Pool2d l = p;
    l.H = h;
    l.W = h + 0;
    auto x = ref::random_floats(size_t(3 * h * h), uint32_t(h));
    auto got = o->run({3, h, h}, x);
    ASSERT_EQ(o->out_dims(), (Dims{3, l.OH(), l.OW()}));
    expect_close(got, vref::max_pool2d(l, x), 0.0, 0.0, fmt::format("dilated {}", h));
  }
}

TEST(Pool2d, MaxPoolPropagatesNaN) {
  vref::Pool2d p{1, 4, 4, 2, 2, 2, 2};
  std::vector<float> x(16, 1.0f);
  x[5] = std::nanf("");
  auto o = make_pool(true, {1, 1, 4, 4}, p);
  auto got = o->run({1, 1, 4, 4}, x);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_EQ(got[1], 1.0f);
  EXPECT_EQ(got[3], 1.0f);
}

TEST(Pool2d, ManyOutputsFoldTheGrid) {
  vref::Pool2d p{70, 260, 260, 2, 2, 1, 1};  // 70 * 259 * 259 outputs = 73,375 workgroups of 64
  auto x = ref::random_floats(size_t(70 * 260 * 260), 9);
  auto o = make_pool(false, {70, 260, 260}, p);
  expect_close(o->run({70, 260, 260}, x), vref::avg_pool2d(p, x), 1e-6, 1e-5, "folded avg pool");
}

TEST(Pool2d, MatchesPyTorchGoldens) {
  int n = 0;
  for (const auto& c : wgrt::test::vision_golden("pool.json")) {
    const Dims xd = jdims(c["x_dims"]);
    const int64_t k = c["k"], s = c["s"], pd = c["p"];
    const bool max = c["op"] == "max";
    vref::Pool2d p{xd[0] * xd[1], xd[2], xd[3], k, k, s, s, pd, pd};
    p.ceil_mode = c["ceil"];
    if (max) p.dh = p.dw = c["d"];
    else p.count_include_pad = c["cip"], p.divisor = c["div"];
    auto o = make_pool(max, xd, p);
    auto got = o->run(xd, jfloats(c["x"]));
    EXPECT_EQ(o->out_dims(), jdims(c["out_dims"]));
    expect_close(got, jfloats(c["out"]), 1e-6, 1e-5, fmt::format("golden {} pool case {}", max ? "max" : "avg", n++));
  }
  EXPECT_EQ(n, 8);
}

TEST(Pool2d, BadArgumentsThrow) {
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([] { make_pool(true, {1, 1, 8, 8}, vref::Pool2d{1, 8, 8, 3, 3, 1, 1, 2, 2}); }, "padding");
  expect_error<InvalidArgument>([] { make_pool(false, {1, 1, 8, 8}, vref::Pool2d{1, 8, 8, 0, 3, 1, 1}); }, "kernel_size");
  expect_error<InvalidArgument>([] { make_pool(false, {8, 8}, vref::Pool2d{1, 8, 8, 2, 2, 1, 1}); }, "rank");
}
