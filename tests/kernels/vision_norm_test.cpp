// native_layer_norm, native_group_norm and _native_batch_norm_legit_no_training against the double
// reference and PyTorch goldens: odd sizes, multi-dim normalized_shape, optional affine, live leading dims,
// folded grids, bad arguments. Tolerance |d| <= 1e-5 + 1e-4 |ref|.
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

std::unique_ptr<OneOp> make_ln(Dims xmax, IntList ns, const std::vector<float>& w, const std::vector<float>& b, double eps) {
  auto o = std::make_unique<OneOp>();
  ValueId x = o->input(xmax, {});
  ValueId wt = w.empty() ? o->g.none() : o->constant(int64_t(w.size()) == numel(ns) ? ns : Dims{int64_t(w.size())}, w);
  ValueId bt = b.empty() ? o->g.none() : o->constant(ns, b);
  o->build("aten.native_layer_norm.default", {x, o->g.int_list(ns), wt, bt, o->g.real(eps)});
  return o;
}

}  // namespace

TEST(LayerNorm, OddSizesAgainstReference) {
  uint32_t seed = 3;
  for (auto [rows, L] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 7}, {5, 255}, {2, 257}, {7, 768}, {1, 1152}}) {
    auto w = ref::random_floats(size_t(L), seed, 0.5f, 1.5f), b = ref::random_floats(size_t(L), seed + 1);
    auto x = ref::random_floats(size_t(rows * L), seed + 2, -3.0f, 5.0f);
    auto o = make_ln({rows, L}, {L}, w, b, 1e-6);
    expect_close(o->run({rows, L}, x), vref::layer_norm(x, L, w, b, 1e-6), 1e-5, 1e-4, fmt::format("rows {} L {}", rows, L));
    seed += 3;
  }
}

TEST(LayerNorm, MultiDimShapeNoAffineAndLiveRows) {
  auto o = make_ln({4, 6, 3, 5}, {3, 5}, {}, {}, 1e-5);
  for (int64_t n : {4, 1, 3}) {
    auto x = ref::random_floats(size_t(n * 6 * 15), uint32_t(n));
    auto got = o->run({n, 6, 3, 5}, x);
    EXPECT_EQ(o->out_dims(), (Dims{n, 6, 3, 5}));
    expect_close(got, vref::layer_norm(x, 15, {}, {}, 1e-5), 1e-5, 1e-4, fmt::format("n {}", n));
  }
}

TEST(LayerNorm, ManyRowsFoldTheGrid) {
  const int64_t rows = 66000, L = 3;
  auto w = ref::random_floats(L, 1, 0.5f, 1.5f), b = ref::random_floats(L, 2);
  auto x = ref::random_floats(size_t(rows * L), 3);
  auto o = make_ln({rows, L}, {L}, w, b, 1e-5);
  expect_close(o->run({rows, L}, x), vref::layer_norm(x, L, w, b, 1e-5), 1e-5, 1e-4, "66000 rows");
}

TEST(VisionNorm, MatchesPyTorchGoldens) {
  const auto j = wgrt::test::vision_golden("norm.json");
  for (const auto& c : j["layer_norm"]) {
    const Dims xd = jdims(c["x_dims"]);
    auto o = make_ln(xd, c["shape"].get<IntList>(), jfloats(c["w"]), jfloats(c["b"]), c["eps"].get<double>());
    expect_close(o->run(xd, jfloats(c["x"])), jfloats(c["out"]), 1e-5, 1e-4, "golden layer_norm");
  }
  for (const auto& c : j["group_norm"]) {
    const Dims xd = jdims(c["x_dims"]);
    OneOp o;
    ValueId x = o.input(xd, jfloats(c["x"]));
    Graph& g = o.g;
    o.build("aten.native_group_norm.default",
            {x, o.constant({xd[1]}, jfloats(c["w"])), o.constant({xd[1]}, jfloats(c["b"])), g.int_value(xd[0]),
             g.int_value(xd[1]), g.int_value(xd[2] * xd[3]), g.int_value(c["groups"].get<int64_t>()), g.real(c["eps"].get<double>())});
    expect_close(o.run(), jfloats(c["out"]), 1e-5, 1e-4, "golden group_norm");
  }
  for (const auto& c : j["batch_norm"]) {
    const Dims xd = jdims(c["x_dims"]);
    OneOp o;
    ValueId x = o.input(xd, jfloats(c["x"]));
    Graph& g = o.g;
    const Dims cd = {xd[1]};
    o.build("aten._native_batch_norm_legit_no_training.default",
            {x, o.constant(cd, jfloats(c["w"])), o.constant(cd, jfloats(c["b"])), o.constant(cd, jfloats(c["mean"])),
             o.constant(cd, jfloats(c["var"])), g.real(0.1), g.real(c["eps"].get<double>())});
    expect_close(o.run(), jfloats(c["out"]), 1e-5, 1e-4, "golden batch_norm");
  }
}

TEST(GroupNorm, OddSizesAgainstReference) {
  uint32_t seed = 20;
  for (auto [N, C, inner, G, affine] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, bool>>{
           {1, 4, 1, 1, true}, {2, 6, 35, 3, true}, {3, 32, 49, 8, false}, {1, 5, 7, 5, true}}) {
    std::vector<float> w, b;
    if (affine) w = ref::random_floats(size_t(C), seed, 0.5f, 1.5f), b = ref::random_floats(size_t(C), seed + 1);
    auto x = ref::random_floats(size_t(N * C * inner), seed + 2, -2.0f, 4.0f);
    OneOp o;
    ValueId xv = o.input({N, C, inner}, x);
    Graph& g = o.g;
    o.build("aten.native_group_norm.default",
            {xv, affine ? o.constant({C}, w) : g.none(), affine ? o.constant({C}, b) : g.none(), g.int_value(N),
             g.int_value(C), g.int_value(inner), g.int_value(G), g.real(1e-5)});
    expect_close(o.run(), vref::group_norm(x, N, C, inner, G, w, b, 1e-5), 1e-5, 1e-4,
                 fmt::format("N {} C {} inner {} G {}", N, C, inner, G));
    seed += 3;
  }
}

TEST(BatchNorm, AgainstReferenceWithAndWithoutAffine) {
  for (bool affine : {true, false}) {
    const int64_t N = 3, C = 5, H = 7, W = 3;
    auto x = ref::random_floats(size_t(N * C * H * W), 4);
    std::vector<float> w, b;
    if (affine) w = ref::random_floats(C, 5), b = ref::random_floats(C, 6);
    auto m = ref::random_floats(C, 7), v = ref::random_floats(C, 8, 0.1f, 2.0f);
    OneOp o;
    ValueId xv = o.input({N, C, H, W}, x);
    Graph& g = o.g;
    o.build("aten._native_batch_norm_legit_no_training.default",
            {xv, affine ? o.constant({C}, w) : g.none(), affine ? o.constant({C}, b) : g.none(), o.constant({C}, m),
             o.constant({C}, v), g.real(0.1), g.real(1e-3)});
    expect_close(o.run(), vref::batch_norm(x, N, C, H * W, w, b, m, v, 1e-3), 1e-5, 1e-4, affine ? "affine" : "plain");
  }
}

TEST(VisionNorm, BadArgumentsThrow) {
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([] { make_ln({2, 5}, {4}, {}, {}, 1e-5); }, "normalized_shape");
  expect_error<InvalidArgument>([] { make_ln({2, 5}, {5}, std::vector<float>(4, 1.0f), {}, 1e-5); }, "weight");
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({1, 6, 4}, {});
    Graph& g = o.g;
    o.build("aten.native_group_norm.default", {x, g.none(), g.none(), g.int_value(1), g.int_value(6), g.int_value(4),
                                               g.int_value(4), g.real(1e-5)});
  }, "must divide");
}
