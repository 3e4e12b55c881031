// Copy ops (view_copy, slice_copy, select_copy, permute_copy, cat) vs plain CPU index arithmetic written here
// from PyTorch's documented semantics. Exact comparison (copies). Odd sizes, negative dims/indices,
// clamping, SymInt arguments, dynamic shapes on one graph, rank 8, i32 bit-exactness.
#include <gtest/gtest.h>

#include <numeric>
#include <optional>
#include <tuple>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;

namespace {

std::vector<float> iota_f(int64_t n, float off = 0.5f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i) + off;
  return v;
}

std::vector<int64_t> strides_of(const Dims& d) {
  std::vector<int64_t> s(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return s;
}

// Visits every coordinate of `shape` in row-major order.
template <typename F>
void for_each_coord(const Dims& shape, F f) {
  int64_t n = numel(shape);
  std::vector<int64_t> c(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(c);
    for (size_t k = shape.size(); k-- > 0;) {
      if (++c[k] < shape[k]) break;
      c[k] = 0;
    }
  }
}

// Runs a one-op graph: x input (max dims), op args built by `args(g, x, out)`, returns the executable.
struct OneOp {
  ValueId x, out;
  std::unique_ptr<ExecutableGraph> exe;
  template <typename F>
  OneOp(const Dims& max_dims, F add_op, DType dt = DType::F32) {
    Graph g;
    x = g.input("x", dt, max_dims);
    out = g.tensor_like(dt, "out");
    add_op(g, x, out);
    g.output(out);
    exe = ExecutableGraph::build(std::move(g), gpu());
  }
  std::vector<float> run(const Dims& d, const std::vector<float>& v) {
    exe->set_input(x, d, std::span<const float>(v));
    exe->execute();
    return exe->read_f32(out);
  }
};

// Python slicing length/start for torch.slice semantics (step > 0).
std::pair<int64_t, int64_t> py_slice(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  int64_t s = start.value_or(0), e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  return {s, (e - s + step - 1) / step};
}

}  // namespace

TEST(Copy, ViewCopyInfersMinusOneFromLiveNumel) {
  OneOp op({1, 9, 6}, [](Graph& g, ValueId x, ValueId out) {
    g.op("aten.view_copy.default", {x, g.int_list({1, -1, 2, 3}), out});
  });
  for (int64_t S : {9, 5, 1}) {
    auto v = iota_f(S * 6);
    EXPECT_EQ(op.run({1, S, 6}, v), v);
    EXPECT_EQ(op.exe->dims(op.out), (Dims{1, S, 2, 3}));
  }
}

// view_copy with a SymInt[] size (free SymInts set by the caller, as the ONNX importer's bounded dims do): the
// output follows the SymInts at every execute, values unchanged (a view); a live size that does not match the
// element count is an error naming the node.
TEST(Copy, ViewCopyTakesSymIntSizes) {
  ValueId h = -1, w = -1;
  OneOp op({2, 8, 6}, [&](Graph& g, ValueId x, ValueId out) {
    h = g.symint(2);
    w = g.symint(6);
    g.op("aten.view_copy.default", {x, g.value_list({h, g.int_value(-1), w}), out});
  });
  for (auto [a, b, c] : {std::tuple<int64_t, int64_t, int64_t>{2, 8, 6}, {1, 3, 5}, {2, 1, 1}}) {
    const auto v = iota_f(a * b * c);
    op.exe->set_symint(h, a);
    op.exe->set_symint(w, c);
    EXPECT_EQ(op.run({a, b, c}, v), v);
    EXPECT_EQ(op.exe->dims(op.out), (Dims{a, b, c}));
  }
  op.exe->set_symint(w, 7);
  EXPECT_THROW(op.run({1, 3, 5}, iota_f(15)), InvalidArgument);
}

TEST(Copy, ViewCopyRejectsBadSizes) {
  auto build = [](IntList size) {
    Graph g;
    ValueId x = g.input("x", DType::F32, {2, 5});
    g.op("aten.view_copy.default", {x, g.int_list(size), g.tensor_like(DType::F32)}, "bad_view");
    return ExecutableGraph::build(std::move(g), gpu());
  };
  EXPECT_THROW(build({3, -1}), InvalidArgument);
  EXPECT_THROW(build({-1, -1}), InvalidArgument);
  EXPECT_THROW(build({4, 3}), InvalidArgument);
  EXPECT_NO_THROW(build({5, 2}));
}

TEST(Copy, SliceCopyPyTorchClampingAndNegativeIndices) {
  const Dims xd = {4, 7, 5};
  auto xv = iota_f(numel(xd));
  struct Case {
    int64_t dim;
    std::optional<int64_t> start, end;
    int64_t step;
  };
  for (Case c : {Case{1, 2, std::nullopt, 2}, Case{-1, -3, -1, 1}, Case{0, std::nullopt, 100, 3}, Case{1, -100, 3, 1},
                 Case{2, 4, 2, 1}, Case{1, 6, 7, 5}, Case{0, 1, 4, 1}}) {
    OneOp op(xd, [&](Graph& g, ValueId x, ValueId out) {
      g.op("aten.slice_copy.Tensor", {x, g.int_value(c.dim), c.start ? g.int_value(*c.start) : g.none(),
                                      c.end ? g.int_value(*c.end) : g.none(), g.int_value(c.step), out});
    });
    auto got = op.run(xd, xv);
    int64_t dim = c.dim < 0 ? c.dim + 3 : c.dim;
    auto [s0, len] = py_slice(xd[size_t(dim)], c.start, c.end, c.step);
    Dims od = xd;
    od[size_t(dim)] = len;
    ASSERT_EQ(op.exe->dims(op.out), od);
    std::vector<float> want;
    auto xs = strides_of(xd);
    for_each_coord(od, [&](const std::vector<int64_t>& co) {
      int64_t idx = 0;
      for (size_t k = 0; k < 3; ++k) idx += (int64_t(k) == dim ? s0 + co[k] * c.step : co[k]) * xs[k];
      want.push_back(xv[size_t(idx)]);
    });
    EXPECT_EQ(got, want) << "dim " << c.dim << " step " << c.step;
  }
}

TEST(Copy, SliceCopyWithSymIntBoundsOnDynamicShape) {
  // out = x[:, pos : pos + 3, :] with pos a live SymInt and x's middle dim dynamic.
  Graph g;
  ValueId x = g.input("x", DType::F32, {2, 11, 3}), pin = g.input("pos", DType::I32, {1});
  ValueId pos = g.symint(), end = g.symint();
  g.op("et_vk.select_as_symint.default", {pin, g.int_value(0), g.int_value(0), pos});
  g.op("executorch_prim.add.Scalar", {pos, g.int_value(3), end});
  ValueId out = g.tensor_like(DType::F32);
  g.op("aten.slice_copy.Tensor", {x, g.int_value(1), pos, end, g.int_value(1), out});
  g.output(out);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  for (auto [S, p] : {std::pair<int64_t, int32_t>{11, 0}, {11, 8}, {6, 4}, {6, 9}}) {
    auto xv = iota_f(2 * S * 3, float(p));
    exe->set_input(x, {2, S, 3}, std::span<const float>(xv));
    std::vector<int32_t> pv = {p};
    exe->set_input(pin, {1}, std::span<const int32_t>(pv));
    exe->execute();
    auto [s0, len] = py_slice(S, p, p + 3, 1);
    ASSERT_EQ(exe->dims(out), (Dims{2, len, 3}));
    std::vector<float> want;
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t b = 0; b < len; ++b)
        for (int64_t c = 0; c < 3; ++c) want.push_back(xv[size_t((a * S + s0 + b) * 3 + c)]);
    EXPECT_EQ(exe->read_f32(out), want) << "S=" << S << " pos=" << p;
  }
}

TEST(Copy, SelectCopyNegativeAndSymIntIndex) {
  const Dims xd = {3, 5, 7};
  auto xv = iota_f(numel(xd));
  for (auto [dim, index] : {std::pair<int64_t, int64_t>{1, -1}, {0, 2}, {-1, 3}, {2, -7}}) {
    OneOp op(xd, [&](Graph& g, ValueId x, ValueId out) { g.op("aten.select_copy.int", {x, g.int_value(dim), g.int_value(index), out}); });
    auto got = op.run(xd, xv);
    int64_t d = dim < 0 ? dim + 3 : dim, i = index < 0 ? index + xd[size_t(d)] : index;
    Dims od = xd;
    od.erase(od.begin() + d);
    ASSERT_EQ(op.exe->dims(op.out), od);
    std::vector<float> want;
    auto xs = strides_of(xd);
    for_each_coord(od, [&](const std::vector<int64_t>& co) {
      std::vector<int64_t> full = co;
      full.insert(full.begin() + d, i);
      int64_t idx = 0;
      for (size_t k = 0; k < 3; ++k) idx += full[k] * xs[k];
      want.push_back(xv[size_t(idx)]);
    });
    EXPECT_EQ(got, want) << dim << " " << index;
  }
  // Last token of a dynamic sequence: index -1 follows the live S; an out-of-range SymInt index is an error.
  Graph g;
  ValueId x = g.input("x", DType::F32, {1, 9, 4}), pin = g.input("i", DType::I32, {1});
  ValueId idx = g.symint();
  g.op("et_vk.select_as_symint.default", {pin, g.int_value(0), g.int_value(0), idx});
  ValueId last = g.tensor_like(DType::F32), at = g.tensor_like(DType::F32);
  g.op("aten.select_copy.int", {x, g.int_value(1), g.int_value(-1), last});
  g.op("aten.select_copy.int", {x, g.int_value(1), idx, at}, "sel_at");
  g.output(last);
  g.output(at);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  for (auto [S, i] : {std::pair<int64_t, int32_t>{9, 3}, {4, 1}, {4, -4}}) {
    auto v = iota_f(S * 4, float(S));
    exe->set_input(x, {1, S, 4}, std::span<const float>(v));
    std::vector<int32_t> iv = {i};
    exe->set_input(pin, {1}, std::span<const int32_t>(iv));
    exe->execute();
    EXPECT_EQ(exe->read_f32(last), std::vector<float>(v.end() - 4, v.end()));
    int64_t ii = i < 0 ? i + S : i;
    EXPECT_EQ(exe->read_f32(at), std::vector<float>(v.begin() + ii * 4, v.begin() + ii * 4 + 4));
  }
  std::vector<int32_t> iv = {4};
  exe->set_input(pin, {1}, std::span<const int32_t>(iv));
  try {
    exe->execute();
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("sel_at"), std::string::npos) << e.what();
  }
}

TEST(Copy, PermuteCopyOddShapesNegativeDimsAndRank8) {
  struct Case {
    Dims xd;
    IntList perm;
  };
  for (const Case& c : {Case{{2, 3, 4, 5}, {3, 1, 0, 2}}, Case{{3, 1, 7}, {-1, 0, 1}}, Case{{5, 3}, {1, 0}},
                        Case{{2, 1, 3, 2, 1, 3, 2, 2}, {7, 0, 5, 2, 6, 1, 4, 3}}}) {
    auto xv = iota_f(numel(c.xd));
    OneOp op(c.xd, [&](Graph& g, ValueId x, ValueId out) { g.op("aten.permute_copy.default", {x, g.int_list(c.perm), out}); });
    auto got = op.run(c.xd, xv);
    const int64_t r = int64_t(c.xd.size());
    Dims od(c.xd.size());
    std::vector<int64_t> p(c.perm.size());
    for (size_t k = 0; k < p.size(); ++k) {
      p[k] = c.perm[k] < 0 ? c.perm[k] + r : c.perm[k];
      od[k] = c.xd[size_t(p[k])];
    }
    ASSERT_EQ(op.exe->dims(op.out), od);
    auto xs = strides_of(c.xd);
    std::vector<float> want;
    for_each_coord(od, [&](const std::vector<int64_t>& co) {
      int64_t idx = 0;
      for (size_t k = 0; k < co.size(); ++k) idx += co[k] * xs[size_t(p[k])];
      want.push_back(xv[size_t(idx)]);
    });
    EXPECT_EQ(got, want) << dims_str(c.xd);
  }
  Graph g;
  ValueId x = g.input("x", DType::F32, {2, 3, 4});
  g.op("aten.permute_copy.default", {x, g.int_list({0, 0, 1}), g.tensor_like(DType::F32)});
  EXPECT_THROW(ExecutableGraph::build(std::move(g), gpu()), InvalidArgument);
}

TEST(Copy, CatAlongDimsWithDynamicInputAndLegacyEmpty) {
  // cat([a [2,S,3], b [2,4,3], empty [0], c [2,1,3]], dim=-2), S dynamic.
  Graph g;
  ValueId a = g.input("a", DType::F32, {2, 6, 3}), b = g.input("b", DType::F32, {2, 4, 3}), e = g.input("e", DType::F32, {0}),
          c = g.input("c", DType::F32, {2, 1, 3});
  ValueId out = g.tensor_like(DType::F32, "cat_out");
  g.op("aten.cat.default", {g.value_list({a, b, e, c}), g.int_value(-2), out});
  g.output(out);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  auto bv = iota_f(24, 1000.0f), cv = iota_f(6, 2000.0f);
  exe->set_input(b, {2, 4, 3}, std::span<const float>(bv));
  exe->set_input(c, {2, 1, 3}, std::span<const float>(cv));
  exe->set_input(e, {0}, std::span<const float>());
  for (int64_t S : {6, 2, 0, 5}) {
    auto av = iota_f(2 * S * 3);
    exe->set_input(a, {2, S, 3}, std::span<const float>(av));
    exe->execute();
    ASSERT_EQ(exe->dims(out), (Dims{2, S + 5, 3}));
    std::vector<float> want;
    for (int64_t i = 0; i < 2; ++i) {
      want.insert(want.end(), av.begin() + i * S * 3, av.begin() + (i + 1) * S * 3);
      want.insert(want.end(), bv.begin() + i * 12, bv.begin() + (i + 1) * 12);
      want.insert(want.end(), cv.begin() + i * 3, cv.begin() + (i + 1) * 3);
    }
    EXPECT_EQ(exe->read_f32(out), want) << "S=" << S;
  }
  // Last dim, and the list's tensors are kept alive until the cat (memory planning sees list members).
  Graph g2;
  ValueId x = g2.input("x", DType::F32, {3, 2});
  ValueId t1 = g2.tensor_like(DType::F32), t2 = g2.tensor_like(DType::F32), y = g2.tensor_like(DType::F32);
  g2.op("aten.neg.default", {x, t1});
  g2.op("aten.relu.default", {x, t2});
  g2.op("aten.cat.default", {g2.value_list({t1, x, t2}), g2.int_value(1), y});
  g2.output(y);
  auto exe2 = ExecutableGraph::build(std::move(g2), gpu());
  std::vector<float> xv = {1, -2, 3, -4, 5, -6};
  exe2->set_input(x, {3, 2}, std::span<const float>(xv));
  exe2->execute();
  EXPECT_EQ(exe2->read_f32(y), (std::vector<float>{-1, 2, 1, -2, 1, 0, -3, 4, 3, -4, 3, 0, -5, 6, 5, -6, 5, 0}));
  // Mismatched shapes outside dim: a clear error.
  Graph g3;
  ValueId p = g3.input("p", DType::F32, {2, 3}), q = g3.input("q", DType::F32, {3, 3});
  g3.op("aten.cat.default", {g3.value_list({p, q}), g3.int_value(1), g3.tensor_like(DType::F32)}, "bad_cat");
  EXPECT_THROW(ExecutableGraph::build(std::move(g3), gpu()), InvalidArgument);
}

TEST(Copy, I32CopiesAreBitExact) {
  Graph g;
  ValueId x = g.input("ids", DType::I32, {2, 5});
  ValueId y = g.tensor_like(DType::I32);
  g.op("aten.permute_copy.default", {x, g.int_list({1, 0}), y});
  g.output(y);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  std::vector<int32_t> v = {0x7fc00001, -1, 2147483647, -2147483647 - 1, 5, 0x7f800001, 7, 8, 9, 10};  // NaN patterns too
  exe->set_input(x, {2, 5}, std::span<const int32_t>(v));
  exe->execute();
  auto out = exe->read_i32(y);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(out[size_t(j * 2 + i)], v[size_t(i * 5 + j)]);
}
