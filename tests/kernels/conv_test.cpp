// aten.convolution.default against the double reference (tests/kernels/reference/vision_ref) and PyTorch goldens:
// implicit-GEMM route (groups 1) and direct route (grouped, depthwise), odd sizes, padding at the borders,
// stride/dilation, O not a multiple of the 64-wide tile, live N/H/W changes, grids past 65,535 workgroups
// (folded), argument errors. Tolerance |d| <= 1e-4 + 1e-4 |ref| (f32 accumulation over K <= 768).
#include "reference/ops_a_reference.h"
#include "reference/vision_ref.h"
#include "vision_test_util.h"
#include "webgpu/device.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::OneOp;
using wgrt::test::gpu;
namespace vref = wgrt::test::vref;

namespace {

std::unique_ptr<OneOp> make_conv(const vref::Conv2d& c, const std::vector<float>& w, const std::vector<float>& bias,
                                 Dims x_max = {}) {
  auto o = std::make_unique<OneOp>();
  if (x_max.empty()) x_max = {c.N, c.C, c.H, c.W};
  ValueId x = o->input(x_max, {});
  ValueId wt = o->constant({c.O, c.C / c.groups, c.kh, c.kw}, w);
  ValueId b = bias.empty() ? o->g.none() : o->constant({c.O}, bias);
  Graph& g = o->g;
  o->build("aten.convolution.default",
           {x, wt, b, g.int_list({c.sh, c.sw}), g.int_list({c.ph, c.pw}), g.int_list({c.dh, c.dw}), g.boolean(false),
            g.int_list({0, 0}), g.int_value(c.groups)});
  return o;
}

std::vector<float> run_conv(OneOp& o, const vref::Conv2d& c, const std::vector<float>& x) {
  o.input_dims[0].second = {c.N, c.C, c.H, c.W};
  o.input_data[0] = x;
  return o.run();
}

void check_against_ref(const vref::Conv2d& c, uint32_t seed, bool bias) {
  auto x = wgrt::test::ref::random_floats(size_t(c.N * c.C * c.H * c.W), seed);
  auto w = wgrt::test::ref::random_floats(size_t(c.O * (c.C / c.groups) * c.kh * c.kw), seed + 1);
  std::vector<float> b = bias ? wgrt::test::ref::random_floats(size_t(c.O), seed + 2) : std::vector<float>{};
  auto o = make_conv(c, w, b);
  auto got = run_conv(*o, c, x);
  EXPECT_EQ(o->out_dims(), (Dims{c.N, c.O, c.OH(), c.OW()}));
  expect_close(got, vref::conv2d(c, x, w, b), 1e-4, 1e-4,
               fmt::format("conv N{} C{} {}x{} O{} k{}x{} s{},{} p{},{} d{},{} g{}", c.N, c.C, c.H, c.W, c.O, c.kh, c.kw,
                           c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.groups));
}

}  // namespace

TEST(Conv2d, GemmRouteOddSizesAgainstReference) {
  uint32_t seed = 10;
  for (vref::Conv2d c : {vref::Conv2d{1, 3, 7, 5, 70, 3, 3, 1, 1, 1, 1},
                         vref::Conv2d{2, 5, 11, 9, 7, 3, 2, 2, 3, 1, 0, 1, 2},
                         vref::Conv2d{1, 1, 1, 1, 3, 1, 1},
                         vref::Conv2d{1, 3, 13, 17, 65, 5, 5, 2, 2, 2, 2, 2, 2},
                         vref::Conv2d{2, 3, 32, 32, 24, 16, 16, 16, 16},
                         vref::Conv2d{1, 33, 9, 10, 129, 1, 1}}) {
    check_against_ref(c, seed, seed % 2 == 0);
    seed += 3;
  }
}

TEST(Conv2d, GemmRouteOnEveryGemmKernel) {
  // The implicit-im2col loaders of both shared GEMM kernels (conv_gemm.wgsl, conv_gemm_cpu.wgsl), forced through
  // the tuning policy, on shapes with partial tiles and partial 8-k steps. The geometry is a set of override
  // constants (conv_im2col.wgsl): pointwise kernels (1x1, stride 1, no padding, here with 2 images and K 33 / 20)
  // take the no-decomposition path; 1x1 with stride 2 or padding 1 must not.
  wgrt::test::for_each_gemm_kernel([&] {
    uint32_t seed = 40;
    for (vref::Conv2d c : {vref::Conv2d{1, 3, 7, 5, 70, 3, 3, 1, 1, 1, 1}, vref::Conv2d{2, 5, 11, 9, 7, 3, 2, 2, 3, 1, 0, 1, 2},
                           vref::Conv2d{1, 33, 9, 10, 129, 1, 1}, vref::Conv2d{2, 20, 7, 9, 24, 1, 1},
                           vref::Conv2d{1, 9, 7, 8, 10, 1, 1, 2, 2}, vref::Conv2d{2, 9, 5, 6, 10, 1, 1, 1, 1, 1, 1}}) {
      check_against_ref(c, seed, seed % 2 == 0);
      seed += 3;
    }
  });
}

TEST(Conv2d, GroupedAndDepthwiseAgainstReference) {
  uint32_t seed = 40;
  for (vref::Conv2d c : {vref::Conv2d{2, 6, 9, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6},
                         vref::Conv2d{1, 8, 10, 11, 16, 3, 3, 2, 2, 1, 1, 1, 1, 8},
                         vref::Conv2d{1, 6, 7, 7, 4, 2, 3, 1, 2, 1, 0, 2, 1, 2},
                         vref::Conv2d{1, 4, 5, 5, 4, 7, 7, 1, 1, 3, 3, 1, 1, 4}}) {
    check_against_ref(c, seed, seed % 2 == 0);
    seed += 3;
  }
}

TEST(Conv2d, MatchesPyTorchGoldens) {
  const auto cases = wgrt::test::vision_golden("conv.json");
  for (const auto& j : cases) {
    const Dims xd = wgrt::test::jdims(j["x_dims"]), wd = wgrt::test::jdims(j["w_dims"]);
    vref::Conv2d c{xd[0], xd[1], xd[2], xd[3], wd[0], wd[2], wd[3], j["stride"][0], j["stride"][1], j["padding"][0],
                   j["padding"][1], j["dilation"][0], j["dilation"][1], j["groups"]};
    auto o = make_conv(c, wgrt::test::jfloats(j["w"]), wgrt::test::jfloats(j["b"]));
    auto got = run_conv(*o, c, wgrt::test::jfloats(j["x"]));
    EXPECT_EQ(o->out_dims(), wgrt::test::jdims(j["out_dims"]));
    expect_close(got, wgrt::test::jfloats(j["out"]), 1e-4, 1e-4, "golden conv " + dims_str(xd) + " " + dims_str(wd));
  }
  EXPECT_EQ(cases.size(), 5u);
}

TEST(Conv2d, LiveSizesChangeBetweenExecutes) {
  for (int64_t groups : {1, 3}) {
    vref::Conv2d c{2, 3, 20, 20, 6, 3, 3, 2, 2, 1, 1, 1, 1, groups};
    auto w = wgrt::test::ref::random_floats(size_t(6 * (3 / groups) * 9), 5);
    auto b = wgrt::test::ref::random_floats(6, 6);
    auto o = make_conv(c, w, b, {2, 3, 20, 20});
    for (auto [n, h, wd] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 9, 13}, {2, 20, 20}, {1, 3, 4}}) {
      vref::Conv2d l = c;
      l.N = n;
      l.H = h;
      l.W = wd;
      auto x = wgrt::test::ref::random_floats(size_t(n * 3 * h * wd), uint32_t(h));
      auto got = run_conv(*o, l, x);
      ASSERT_EQ(o->out_dims(), (Dims{n, 6, l.OH(), l.OW()}));
      expect_close(got, vref::conv2d(l, x, w, b), 1e-4, 1e-4, fmt::format("groups {} live {}x{}x{}", groups, n, h, wd));
    }
  }
}

TEST(Conv2d, GemmGridPast65535WorkgroupsFolds) {
  // 65600 images of 3x3 with a 2x2 kernel: one 64x64 tile each -> 65600 workgroups (> 65535 per dimension).
  vref::Conv2d c{65600, 1, 3, 3, 2, 2, 2};
  check_against_ref(c, 77, true);
}

TEST(Conv2d, DirectGridPast65535WorkgroupsFolds) {
  // Depthwise 4 x 1030 x 1030 outputs = 4.24M invocations = 66,307 workgroups of 64.
  vref::Conv2d c{1, 4, 1030, 1030, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4};
  check_against_ref(c, 78, false);
}

TEST(Conv2d, BadArgumentsThrow) {
  using wgrt::test::expect_error;
  auto build = [](Dims xd, Dims wd, int64_t groups, bool transposed, IntList stride) {
    OneOp o;
    ValueId x = o.input(xd, {});
    ValueId w = o.constant(wd, std::vector<float>(size_t(numel(wd)), 0.0f));
    Graph& g = o.g;
    o.build("aten.convolution.default", {x, w, g.none(), g.int_list(stride), g.int_list({0}), g.int_list({1}),
                                         g.boolean(transposed), g.int_list({0}), g.int_value(groups)});
  };
  expect_error<InvalidArgument>([&] { build({1, 3, 8, 8}, {4, 3, 3, 3}, 1, true, {1}); }, "transposed");
  expect_error<InvalidArgument>([&] { build({1, 3, 8, 8}, {4, 2, 3, 3}, 1, false, {1}); }, "input channels");
  expect_error<InvalidArgument>([&] { build({1, 4, 8, 8}, {6, 2, 3, 3}, 3, false, {1}); }, "multiples of groups");
  expect_error<InvalidArgument>([&] { build({1, 3, 8, 8}, {4, 3, 3, 3}, 1, false, {0}); }, "stride");
  expect_error<InvalidArgument>([&] { build({1, 3, 2, 2}, {4, 3, 3, 3}, 1, false, {1}); }, "empty output");
}
