// upsample_nearest2d.vec, upsample_bilinear2d.vec (align_corners true/false, output_size or scale factors)
// and constant_pad_nd against the reference and PyTorch goldens; odd sizes, downsampling, cropping pads,
// live sizes, bad arguments. Nearest and pad are exact; bilinear |d| <= 1e-6 + 1e-5 |ref|.
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

// output_size {} -> scale factor sf (a Double for both dims).
std::unique_ptr<OneOp> make_up(bool bilinear, Dims xmax, IntList size, double sf, bool align) {
  auto o = std::make_unique<OneOp>();
  ValueId x = o->input(xmax, {});
  Graph& g = o->g;
  ValueId sz = size.empty() ? g.none() : g.int_list(size);
  ValueId sc = size.empty() ? g.real(sf) : g.none();
  if (bilinear) o->build("aten.upsample_bilinear2d.vec", {x, sz, g.boolean(align), sc});
  else o->build("aten.upsample_nearest2d.vec", {x, sz, sc});
  return o;
}

}  // namespace

TEST(Upsample, AgainstReferenceOddSizes) {
  const int64_t P = 3;
  uint32_t seed = 1;
  for (auto [H, W, OH, OW] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{
           {5, 7, 8, 10}, {5, 7, 3, 4}, {1, 1, 3, 5}, {4, 4, 4, 4}, {6, 3, 13, 1}, {7, 9, 14, 18}}) {
    auto x = ref::random_floats(size_t(P * H * W), seed++);
    auto o = make_up(false, {1, P, H, W}, {OH, OW}, 0, false);
    expect_close(o->run({1, P, H, W}, x), vref::upsample_nearest(x, P, H, W, OH, OW), 0, 0,
                 fmt::format("nearest {}x{} -> {}x{}", H, W, OH, OW));
    for (bool align : {false, true}) {
      auto b = make_up(true, {1, P, H, W}, {OH, OW}, 0, align);
      expect_close(b->run({1, P, H, W}, x), vref::upsample_bilinear(x, P, H, W, OH, OW, align), 1e-6, 1e-5,
                   fmt::format("bilinear align {} {}x{} -> {}x{}", align, H, W, OH, OW));
    }
  }
}

TEST(Upsample, ScaleFactorsAndLiveSizes) {
  auto o = make_up(true, {2, 3, 9, 9}, {}, 2.0, false);
  auto n = make_up(false, {2, 3, 9, 9}, {}, 3.0, false);
  for (auto [N, H, W] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{2, 9, 9}, {1, 4, 7}, {2, 1, 3}}) {
    auto x = ref::random_floats(size_t(N * 3 * H * W), uint32_t(H * W));
    auto got = o->run({N, 3, H, W}, x);
    ASSERT_EQ(o->out_dims(), (Dims{N, 3, 2 * H, 2 * W}));
    expect_close(got, vref::upsample_bilinear(x, N * 3, H, W, 2 * H, 2 * W, false, 2.0, 2.0), 1e-6, 1e-5, "bilinear x2");
    auto gn = n->run({N, 3, H, W}, x);
    ASSERT_EQ(n->out_dims(), (Dims{N, 3, 3 * H, 3 * W}));
    expect_close(gn, vref::upsample_nearest(x, N * 3, H, W, 3 * H, 3 * W, 3.0, 3.0), 0, 0, "nearest x3");
  }
}

TEST(Upsample, MatchesPyTorchGoldens) {
  int n = 0;
  for (const auto& c : wgrt::test::vision_golden("resample.json")) {
    const Dims xd = jdims(c["x_dims"]);
    const bool bil = c["mode"] == "bilinear";
    auto o = make_up(bil, xd, c["size"].get<IntList>(), c["scale"].get<double>(), bil && c["align"].get<bool>());
    auto got = o->run(xd, jfloats(c["x"]));
    EXPECT_EQ(o->out_dims(), jdims(c["out_dims"]));
    expect_close(got, jfloats(c["out"]), 1e-6, 1e-5, fmt::format("golden {} case {}", c["mode"].get<std::string>(), n++));
  }
  EXPECT_EQ(n, 9);
}

TEST(ConstantPad, AgainstReferenceAndGoldens) {
  for (auto [d, pad] : std::vector<std::pair<Dims, IntList>>{{{2, 3, 5, 7}, {1, 2, 3, 0}}, {{4, 5}, {-1, -2, 2, 1}},
                                                             {{3}, {4, 4}}, {{2, 2, 3}, {0, 0, 0, 0, 1, 2}}}) {
    auto x = ref::random_floats(size_t(numel(d)), 11);
    OneOp o;
    ValueId xv = o.input(d, x);
    o.build("aten.constant_pad_nd.default", {xv, o.g.int_list(pad), o.g.real(-0.75)});
    Dims od;
    auto want = vref::constant_pad(x, d, pad, -0.75f, od);
    auto got = o.run();
    EXPECT_EQ(o.out_dims(), od);
    expect_close(got, want, 0, 0, "pad " + dims_str(d) + " " + dims_str(pad));
  }
  int n = 0;
  const auto golden = wgrt::test::vision_golden("misc.json");
  for (const auto& c : golden["constant_pad"]) {
    OneOp o;
    ValueId xv = o.input(jdims(c["x_dims"]), jfloats(c["x"]));
    o.build("aten.constant_pad_nd.default", {xv, o.g.int_list(c["pad"].get<IntList>()), o.g.real(c["value"].get<double>())});
    auto got = o.run();
    EXPECT_EQ(o.out_dims(), jdims(c["out_dims"]));
    expect_close(got, jfloats(c["out"]), 0, 0, fmt::format("golden pad {}", n++));
  }
  EXPECT_EQ(n, 3);
}

TEST(Resample, BadArgumentsThrow) {
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({1, 1, 4, 4}, {});
    o.build("aten.upsample_nearest2d.vec", {x, o.g.int_list({8, 8}), o.g.real(2.0)});
  }, "exactly one");
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({1, 1, 4, 4}, {});
    o.build("aten.upsample_bilinear2d.vec", {x, o.g.int_list({8}), o.g.boolean(false), o.g.none()});
  }, "output_size");
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({3, 4}, {});
    o.build("aten.constant_pad_nd.default", {x, o.g.int_list({1, 1, 1}), o.g.real(0.0)});
  }, "even length");
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({3, 4}, {});
    o.build("aten.constant_pad_nd.default", {x, o.g.int_list({-3, -2}), o.g.real(0.0)});
  }, "negative");
}
