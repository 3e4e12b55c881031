// et_vk.rms_norm.default against the double reference and PyTorch goldens (D in {8, 64, 4096}), odd row
// counts, rows changing between executes, folded grids, bad arguments. Tolerance |d| <= 1e-5 + 1e-4 |ref|.
#include <gtest/gtest.h>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::gpu;
namespace ref = wgrt::test::ref;

namespace {

struct NormGraph {
  std::unique_ptr<ExecutableGraph> exe;
  ValueId x, out;
  std::vector<float> w;
};

NormGraph make_norm(Dims xdims, double eps, std::vector<float> w) {
  Graph g;
  NormGraph n;
  n.x = g.input("x", DType::F32, xdims);
  ValueId wt = g.constant("w", DType::F32, {xdims.back()}, ConstantData::from_vector(w));
  n.out = g.tensor_like(DType::F32, "out");
  g.op("et_vk.rms_norm.default", {n.x, wt, g.real(eps), n.out}, "norm");
  g.output(n.out);
  n.exe = ExecutableGraph::build(std::move(g), gpu());
  n.w = std::move(w);
  return n;
}

}  // namespace

TEST(RmsNorm, OddSizesAgainstReference) {
  uint32_t seed = 1;
  for (auto [rows, D] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 7}, {5, 255}, {2, 257}, {7, 1000}, {1, 4096}}) {
    auto w = ref::random_floats(size_t(D), seed, 0.5f, 1.5f);
    NormGraph n = make_norm({rows, D}, 1e-5, w);
    auto x = ref::random_floats(size_t(rows * D), seed + 1, -3.0f, 3.0f);
    n.exe->set_input(n.x, {rows, D}, std::span<const float>(x));
    n.exe->execute();
    expect_close(n.exe->read_f32(n.out), ref::rms_norm(x, w, D, 1e-5), 1e-5, 1e-4, fmt::format("rows {} D {}", rows, D));
    ++seed;
  }
}

TEST(RmsNorm, RowsChangeBetweenExecutes) {
  const int64_t D = 96;
  NormGraph n = make_norm({1, 40, D}, 1e-6, ref::random_floats(D, 3, 0.5f, 1.5f));
  for (int64_t rows : {7, 1, 40, 2}) {
    auto x = ref::random_floats(size_t(rows * D), uint32_t(rows));
    n.exe->set_input(n.x, {1, rows, D}, std::span<const float>(x));
    n.exe->execute();
    ASSERT_EQ(n.exe->dims(n.out), (Dims{1, rows, D}));
    expect_close(n.exe->read_f32(n.out), ref::rms_norm(x, n.w, D, 1e-6), 1e-5, 1e-4, fmt::format("rows {}", rows));
  }
}

TEST(RmsNorm, ManyRowsFoldTheGrid) {
  // 70000 rows > 65535 workgroups per dimension: the grid folds to 2-D.
  const int64_t rows = 70000, D = 4;
  NormGraph n = make_norm({rows, D}, 1e-5, {1.0f, 2.0f, 0.5f, -1.0f});
  auto x = ref::random_floats(size_t(rows * D), 9);
  n.exe->set_input(n.x, {rows, D}, std::span<const float>(x));
  n.exe->execute();
  expect_close(n.exe->read_f32(n.out), ref::rms_norm(x, n.w, D, 1e-5), 1e-5, 1e-4, "70000 rows");
}

TEST(RmsNorm, MatchesPyTorchGoldens) {
  int count = 0;
  const nlohmann::json manifest = wgrt::test::read_golden_manifest();
  for (const auto& c : manifest["rms_norm"]) {
    const int64_t rows = c["rows"], D = c["D"];
    NormGraph n = make_norm({rows, D}, c["eps"].get<double>(), wgrt::test::read_golden_bin<float>(c["weight"]));
    auto x = wgrt::test::read_golden_bin<float>(c["x"]);
    n.exe->set_input(n.x, {rows, D}, std::span<const float>(x));
    n.exe->execute();
    expect_close(n.exe->read_f32(n.out), wgrt::test::read_golden_bin<float>(c["out"]), 1e-5, 1e-4, c["name"]);
    ++count;
  }
  EXPECT_EQ(count, 3);
}

TEST(RmsNorm, BadArguments) {
  Graph g;
  ValueId x = g.input("x", DType::F32, {2, 8});
  ValueId w = g.constant("w", DType::F32, {7}, ConstantData::from_vector(std::vector<float>(7)));
  ValueId out = g.tensor_like(DType::F32);
  g.op("et_vk.rms_norm.default", {x, w, g.real(1e-5), out}, "norm");
  wgrt::test::expect_error<InvalidArgument>([&] { ExecutableGraph::build(std::move(g), gpu()); }, "weight 'w' [7] must be [8]");
}
