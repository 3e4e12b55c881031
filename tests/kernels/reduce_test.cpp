// aten._softmax.default and aten.argmax.default: odd row lengths, -inf entries and fully masked rows
// (zeros), ties (lowest index), NaN (ignored by argmax), dim = None / keepdim, PyTorch goldens.
// Softmax tolerance |d| <= 1e-6 + 1e-4 |ref|; argmax exact.
#include <gtest/gtest.h>

#include <limits>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::gpu;
namespace ref = wgrt::test::ref;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> run_softmax(Dims dims, const std::vector<float>& x, int64_t dim = -1) {
  Graph g;
  ValueId in = g.input("x", DType::F32, dims);
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("aten._softmax.default", {in, g.int_value(dim), g.boolean(false), out}, "softmax");
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  exe->set_input(in, dims, std::span<const float>(x));
  exe->execute();
  EXPECT_EQ(exe->dims(out), dims);
  return exe->read_f32(out);
}

std::pair<std::vector<int32_t>, Dims> run_argmax(Dims dims, const std::vector<float>& x, ValueId (*dimv)(Graph&), bool keepdim,
                                                 const char* op = "aten.argmax.default") {
  Graph g;
  ValueId in = g.input("x", DType::F32, dims);
  ValueId dim = dimv(g);
  // rank-0 outputs cannot have inferred dims: give the max dims explicitly
  Dims od = dims;
  if (g.value(dim).index() == 0) od = keepdim ? Dims(dims.size(), 1) : Dims{};
  else if (keepdim) od.back() = 1;
  else od.pop_back();
  ValueId out = g.tensor(DType::I32, od, "out");
  g.op(op, {in, dim, g.boolean(keepdim), out}, "argmax");
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  exe->set_input(in, dims, std::span<const float>(x));
  exe->execute();
  return {exe->read_i32(out), exe->dims(out)};
}

}  // namespace

TEST(Softmax, OddRowLengths) {
  for (auto [rows, D] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {2, 257}, {4, 1000}, {1, 32000}}) {
    auto x = ref::random_floats(size_t(rows * D), uint32_t(D), -20.0f, 20.0f);
    expect_close(run_softmax({rows, D}, x), ref::softmax(x, D), 1e-6, 1e-4, fmt::format("rows {} D {}", rows, D));
  }
}

// One graph built at [4, 300]: every live shape below it, the row length included, matches the reference.
TEST(Softmax, LiveRowLengthChangesBetweenExecutes) {
  Graph g;
  ValueId in = g.input("x", DType::F32, {4, 300});
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("aten._softmax.default", {in, g.int_value(-1), g.boolean(false), out}, "softmax");
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  for (auto [rows, D] : std::vector<std::pair<int64_t, int64_t>>{{4, 300}, {3, 7}, {1, 1}, {2, 299}, {4, 300}}) {
    auto x = ref::random_floats(size_t(rows * D), uint32_t(D + rows), -20.0f, 20.0f);
    exe->set_input(in, {rows, D}, std::span<const float>(x));
    exe->execute();
    EXPECT_EQ(exe->dims(out), (Dims{rows, D}));
    expect_close(exe->read_f32(out), ref::softmax(x, D), 1e-6, 1e-4, fmt::format("live rows {} D {}", rows, D));
  }
}

TEST(Softmax, NegativeInfinityAndFullyMaskedRows) {
  const int64_t D = 9;
  std::vector<float> x = ref::random_floats(size_t(3 * D), 4, -5.0f, 5.0f);
  x[2] = -kInf;                                       // row 0: one masked entry
  for (int64_t i = 0; i < D; ++i) x[size_t(D + i)] = -kInf;  // row 1: fully masked -> zeros
  for (int64_t i = 1; i < D; ++i) x[size_t(2 * D + i)] = -kInf;  // row 2: one live entry -> exactly 1
  auto got = run_softmax({3, D}, x, 1);
  expect_close(got, ref::softmax(x, D), 1e-6, 1e-4, "masked");
  EXPECT_EQ(got[2], 0.0f);
  for (int64_t i = 0; i < D; ++i) EXPECT_EQ(got[size_t(D + i)], 0.0f);
  EXPECT_FLOAT_EQ(got[size_t(2 * D)], 1.0f);
}

TEST(Softmax, MatchesPyTorchGoldens) {
  const nlohmann::json manifest = wgrt::test::read_golden_manifest();
  for (const auto& c : manifest["softmax"]) {
    const int64_t rows = c["rows"], D = c["D"];
    auto x = wgrt::test::read_golden_bin<float>(c["x"]);
    expect_close(run_softmax({rows, D}, x), wgrt::test::read_golden_bin<float>(c["out"]), 1e-6, 1e-4, c["name"]);
  }
}

TEST(Softmax, RejectsOtherDimsAndHalfToFloat) {
  Graph g;
  ValueId in = g.input("x", DType::F32, {3, 4});
  ValueId out = g.tensor_like(DType::F32);
  g.op("aten._softmax.default", {in, g.int_value(0), g.boolean(false), out}, "softmax");
  wgrt::test::expect_error<InvalidArgument>([&] { ExecutableGraph::build(std::move(g), gpu()); }, "must be the last dim");
  Graph g2;
  ValueId in2 = g2.input("x", DType::F32, {3, 4});
  ValueId out2 = g2.tensor_like(DType::F32);
  g2.op("aten._softmax.default", {in2, g2.int_value(-1), g2.boolean(true), out2}, "softmax");
  wgrt::test::expect_error<InvalidArgument>([&] { ExecutableGraph::build(std::move(g2), gpu()); }, "half_to_float");
}

TEST(Argmax, LastDimTiesNaNAndOddSizes) {
  auto last = [](Graph& g) { return g.int_value(-1); };
  // Rows longer than 4096 take the two-pass route (chunk partials, then a merge): ties across chunks must
  // still give the lowest index.
  for (auto [rows, D] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 3}, {3, 300}, {2, 32000}, {1, 128256}, {3, 4097}}) {
    auto x = ref::random_floats(size_t(rows * D), uint32_t(D + 1));
    for (auto& v : x) v = std::round(v * 4.0f);  // few distinct values: many ties
    auto [got, dims] = run_argmax({rows, D}, x, last, false);
    EXPECT_EQ(dims, (Dims{rows}));
    EXPECT_EQ(got, ref::argmax(x, D)) << rows << "x" << D;
  }
  std::vector<float> x = {1, 5, 5, 2,  std::nanf(""), 3, std::nanf(""), 3,  std::nanf(""), std::nanf(""), std::nanf(""), std::nanf(""),
                          -kInf, -kInf, -kInf, -kInf};
  auto [got, dims] = run_argmax({4, 4}, x, last, true);
  EXPECT_EQ(dims, (Dims{4, 1}));
  EXPECT_EQ(got, (std::vector<int32_t>{1, 1, 0, 0}));
  // Two-pass route: an all-NaN long row gives 0; a maximum only in the last chunk is found.
  std::vector<float> longrows(2 * 9000, std::nanf(""));
  for (int i = 0; i < 9000; ++i) longrows[size_t(9000 + i)] = float(i % 100);
  longrows[9000 + 8999] = 1000.0f;
  auto [got2, dims2] = run_argmax({2, 9000}, longrows, last, false);
  EXPECT_EQ(got2, (std::vector<int32_t>{0, 8999}));
}

// wgrt.argmax_checked: argmax, but -1 for a row holding NaN or +-inf, on both routes (a bad value in the first
// or the last chunk of a long row, or alone among finite values).
TEST(Argmax, CheckedGivesMinusOneForNonFiniteRows) {
  auto last = [](Graph& g) { return g.int_value(-1); };
  for (int64_t D : {7, 300, 9000}) {
    const int64_t rows = 5;
    auto x = ref::random_floats(size_t(rows * D), uint32_t(D));
    x[size_t(1 * D + 0)] = std::nanf("");      // row 1: NaN first
    x[size_t(2 * D + D - 1)] = kInf;          // row 2: +inf last
    x[size_t(3 * D + D / 2)] = -kInf;         // row 3: -inf in the middle
    auto [got, dims] = run_argmax({rows, D}, x, last, false, "wgrt.argmax_checked.default");
    std::vector<int32_t> expect = ref::argmax(x, D);
    expect[1] = expect[2] = expect[3] = -1;
    EXPECT_EQ(got, expect) << D;
    auto [plain, pd] = run_argmax({rows, D}, x, last, false);
    EXPECT_EQ(plain[0], got[0]);
    EXPECT_EQ(plain[4], got[4]);
  }
}

TEST(Argmax, DimNoneOverAllElements) {
  auto none = [](Graph& g) { return g.none(); };
  std::vector<float> x = ref::random_floats(2 * 3 * 7, 5);
  x[30] = 9.0f;
  x[33] = 9.0f;
  auto [got, dims] = run_argmax({2, 3, 7}, x, none, false);
  EXPECT_EQ(dims, Dims{});
  EXPECT_EQ(got, std::vector<int32_t>{30});
  auto [got2, dims2] = run_argmax({2, 3, 7}, x, none, true);
  EXPECT_EQ(dims2, (Dims{1, 1, 1}));
  EXPECT_EQ(got2, std::vector<int32_t>{30});
}

TEST(Argmax, MatchesPyTorchGoldens) {
  auto last = [](Graph& g) { return g.int_value(1); };
  const nlohmann::json manifest = wgrt::test::read_golden_manifest();
  for (const auto& c : manifest["argmax"]) {
    const int64_t rows = c["rows"], D = c["D"];
    auto x = wgrt::test::read_golden_bin<float>(c["x"]);
    auto [got, dims] = run_argmax({rows, D}, x, last, false);
    EXPECT_EQ(got, c["out"].get<std::vector<int32_t>>()) << c["name"];
  }
}

TEST(Argmax, GreedyDecodeReadsOneInt) {
  // logits [1, 1, V] -> argmax over the last dim: one i32.
  const int64_t V = 512;
  auto x = ref::random_floats(V, 77);
  x[301] = 4.0f;
  auto last = [](Graph& g) { return g.int_value(-1); };
  auto [got, dims] = run_argmax({1, 1, V}, x, last, false);
  EXPECT_EQ(dims, (Dims{1, 1}));
  EXPECT_EQ(got, std::vector<int32_t>{301});
}
