// Graph runtime on a real adapter: dispatch ordering, memory planning, scratch pooling, SymInts, resize,
// bad inputs, profiling. Every expected value is computed on the CPU in the test.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "graph/op_builder.h"
#include "graph/op_registry.h"

using namespace wgrt;
using wgrt::test::gpu;

namespace {

ValueId const_f32(Graph& g, const std::string& name, Dims dims, std::vector<float> v) {
  return g.constant(name, DType::F32, dims, ConstantData::from_vector(std::move(v)));
}

std::vector<float> iota_f(size_t n, float scale = 1.0f, float off = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i) * scale + off;
  return v;
}

// Test-only ops, registered on top of the built-ins:
//  test.fused_affine(x, out): two dispatches through a pooled scratch buffer: s = 2x; out = s + 1.
//  test.add_symint(x, s, out): out = x + s, s an Int or SymInt read at resize time into the uniform.
const char* kScaleWgsl = R"(
struct P { n : u32, k : f32, _a : u32, _b : u32 }
@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> y : array<f32>;
@group(0) @binding(2) var<uniform> p : P;
@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) gid : vec3<u32>) { if (gid.x < p.n) { y[gid.x] = x[gid.x] * p.k; } }
@compute @workgroup_size(64)
fn shift(@builtin(global_invocation_id) gid : vec3<u32>) { if (gid.x < p.n) { y[gid.x] = x[gid.x] + p.k; } }
)";

struct P {
  uint32_t n;
  float k;
  uint32_t a, b;
};
WGRT_UNIFORM(P, n, k, a, b);

const OpRegistry& test_registry() {
  static OpRegistry reg = [] {
    OpRegistry r = OpRegistry::builtin();
    r.add({"test.fused_affine",
           [](OpBuilder& b) {
             auto& x = b.tensor(0);
             ScratchRef s = b.scratch(x.max_bytes(), "affine scratch");
             UniformRef u1 = b.uniform<P>(), u2 = b.uniform<P>();
             DispatchRef d1 = b.dispatch({"test/affine.wgsl", "scale", {}, kScaleWgsl}, {Binding::tensor(b.arg(0)), s, u1});
             DispatchRef d2 = b.dispatch({"test/affine.wgsl", "shift", {}, kScaleWgsl}, {s, Binding::tensor(b.arg(1)), u2});
             b.on_resize([=](ResizeContext& r) {
               Dims d = r.tensor(0).dims;
               r.set_dims(1, d);
               uint32_t n = uint32_t(numel(d));
               r.set_uniform(u1, P{n, 2.0f, 0, 0});
               r.set_uniform(u2, P{n, 1.0f, 0, 0});
               r.set_workgroups(d1, div_up(n, 64));
               r.set_workgroups(d2, div_up(n, 64));
             });
           },
           {"test/affine.wgsl:scale", "test/affine.wgsl:shift"}, true});
    r.add({"test.add_symint",
           [](OpBuilder& b) {
             UniformRef u = b.uniform<P>();
             DispatchRef d = b.dispatch({"test/affine.wgsl", "shift", {}, kScaleWgsl}, {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(2)), u});
             b.on_resize([=](ResizeContext& r) {
               Dims dims = r.tensor(0).dims;
               r.set_dims(2, dims);
               uint32_t n = uint32_t(numel(dims));
               r.set_uniform(u, P{n, float(r.int_arg(1)), 0, 0});
               r.set_workgroups(d, div_up(n, 64));
             });
           },
           {"test/affine.wgsl:shift"}, true});
    return r;
  }();
  return reg;
}

}  // namespace

TEST(Graph, ChainOf32DependentDispatchesIsOrdered) {
  // x_{i+1} = x_i + c_i, each add reads the previous add's output: any missing barrier changes the sum.
  Graph g;
  const int64_t n = 1000;
  ValueId x = g.input("x", DType::F32, {n});
  ValueId cur = x;
  std::vector<float> expect = iota_f(n, 0.25f);
  for (int i = 0; i < 32; ++i) {
    ValueId c = const_f32(g, "c" + std::to_string(i), {n}, std::vector<float>(n, float(i + 1)));
    ValueId next = g.tensor(DType::F32, {n});
    g.op("aten.add.Tensor", {cur, c, g.real(1.0), next});
    for (auto& e : expect) e += float(i + 1);
    cur = next;
  }
  g.output(cur);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  auto xin = iota_f(n, 0.25f);
  exe->set_input(x, {n}, std::span<const float>(xin));
  exe->execute();
  EXPECT_EQ(exe->read_f32(cur), expect);
  // Memory planning: 31 chained intermediates need only two shared buffers.
  MemoryStats m = exe->memory();
  EXPECT_EQ(m.intermediate_buffers, 2u);
  EXPECT_LT(m.intermediate_planned, m.intermediate_requested);
}

TEST(Graph, MixedChainWithBroadcasting) {
  // y = ((a + 0.5*b) * c - a) / d with a:[2,3,5], b:[5], c:[3,1], d:[2,1,1]
  Graph g;
  ValueId a = g.input("a", DType::F32, {2, 3, 5});
  ValueId b = const_f32(g, "b", {5}, iota_f(5, 1.0f, 1.0f));
  ValueId c = const_f32(g, "c", {3, 1}, {2.0f, -1.0f, 0.5f});
  ValueId d = const_f32(g, "d", {2, 1, 1}, {4.0f, -2.0f});
  ValueId t1 = g.tensor_like(DType::F32), t2 = g.tensor_like(DType::F32), t3 = g.tensor_like(DType::F32),
          y = g.tensor_like(DType::F32);
  g.op("aten.add.Tensor", {a, b, g.real(0.5), t1});
  g.op("aten.mul.Tensor", {t1, c, t2});
  g.op("aten.sub.Tensor", {t2, a, g.real(1.0), t3});
  g.op("aten.div.Tensor", {t3, d, y});
  g.output(y);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  auto av = iota_f(30, 0.1f, -1.0f);
  exe->set_input(a, {2, 3, 5}, std::span<const float>(av));
  exe->execute();
  auto out = exe->read_f32(y);
  ASSERT_EQ(exe->dims(y), (Dims{2, 3, 5}));
  const float cv[] = {2.0f, -1.0f, 0.5f}, dv[] = {4.0f, -2.0f};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 5; ++k) {
        float x = av[size_t(i * 15 + j * 5 + k)];
        float e = ((x + 0.5f * float(k + 1)) * cv[j] - x) / dv[i];
        EXPECT_NEAR(out[size_t(i * 15 + j * 5 + k)], e, 1e-5f);
      }
}

TEST(Graph, ScratchBuffersArePooledAcrossFusedOps) {
  Graph g;
  const int64_t n = 77;
  ValueId x = g.input("x", DType::F32, {n});
  ValueId cur = x;
  for (int i = 0; i < 6; ++i) {
    ValueId next = g.tensor(DType::F32, {n});
    g.op("test.fused_affine", {cur, next});
    cur = next;
  }
  g.output(cur);
  auto exe = ExecutableGraph::build(std::move(g), gpu(), &test_registry());
  auto xv = iota_f(n, 0.5f, -3.0f);
  exe->set_input(x, {n}, std::span<const float>(xv));
  exe->execute();
  auto out = exe->read_f32(cur);
  for (size_t i = 0; i < size_t(n); ++i) {
    float e = xv[i];
    for (int k = 0; k < 6; ++k) e = 2 * e + 1;
    EXPECT_FLOAT_EQ(out[i], e);
  }
  MemoryStats m = exe->memory();
  EXPECT_EQ(m.scratch_requests, 6u);
  EXPECT_EQ(m.scratch_buffers, 1u);  // six fused ops, one pooled scratch buffer
}

TEST(Graph, SymIntsFromInt64AndInt32Inputs) {
  for (bool use64 : {true, false}) {
    Graph g;
    ValueId pos = g.input("input_pos", DType::I32, {1});
    ValueId x = g.input("x", DType::F32, {4, 3});
    ValueId s = g.symint(), len = g.symint(), sum = g.symint(), prod = g.symint(), q = g.symint(), diff = g.symint();
    g.op("et_vk.select_as_symint.default", {pos, g.int_value(0), g.int_value(0), s});
    g.op("aten.sym_size.int", {x, g.int_value(0), len});
    g.op("executorch_prim.add.Scalar", {s, len, sum});
    g.op("executorch_prim.mul.Scalar", {sum, g.int_value(3), prod});
    g.op("executorch_prim.sub.Scalar", {len, s, diff});
    g.op("executorch_prim.floordiv.Scalar", {diff, g.int_value(4), q});
    auto exe = ExecutableGraph::build(std::move(g), gpu());
    std::vector<float> xv(6, 1.0f);
    exe->set_input(x, {2, 3}, std::span<const float>(xv));
    if (use64) {
      std::vector<int64_t> p = {7};
      exe->set_input(pos, {1}, std::span<const int64_t>(p));
    } else {
      std::vector<int32_t> p = {7};
      exe->set_input(pos, {1}, std::span<const int32_t>(p));
    }
    exe->execute();
    EXPECT_EQ(exe->symint(s), 7);
    EXPECT_EQ(exe->symint(len), 2);
    EXPECT_EQ(exe->symint(sum), 9);
    EXPECT_EQ(exe->symint(prod), 27);
    EXPECT_EQ(exe->symint(diff), -5);
    EXPECT_EQ(exe->symint(q), -2);  // floor(-5 / 4), Python semantics
  }
}

TEST(Graph, ResizeShrinkAndGrowBack) {
  Graph g;
  ValueId a = g.input("a", DType::F32, {8, 16});
  ValueId b = const_f32(g, "b", {16}, iota_f(16, 1.0f));
  ValueId y = g.tensor_like(DType::F32), z = g.tensor_like(DType::F32);
  g.op("aten.mul.Tensor", {a, b, y});
  g.op("aten.silu.default", {y, z});
  g.output(z);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  for (int64_t rows : {8, 1, 3, 8, 5}) {
    auto av = iota_f(size_t(rows * 16), 0.01f, -0.5f + 0.1f * float(rows));
    exe->set_input(a, {rows, 16}, std::span<const float>(av));
    exe->execute();
    ASSERT_EQ(exe->dims(z), (Dims{rows, 16}));
    auto out = exe->read_f32(z);
    for (size_t i = 0; i < out.size(); ++i) {
      double v = double(av[i]) * double(i % 16);
      double e = v / (1.0 + std::exp(-v));
      EXPECT_NEAR(out[i], e, 1e-5) << "rows=" << rows << " i=" << i;
    }
  }
}

TEST(Graph, PinnedSymIntDivergesFromLiveOne) {
  // Negative control: the same computation with input_pos pinned at build must give different results
  // once the live input_pos moves; with the live SymInt it must track the input.
  auto make = [](bool pinned, ValueId& pos, ValueId& x, ValueId& y) {
    Graph g;
    pos = g.input("input_pos", DType::I32, {1});
    x = g.input("x", DType::F32, {4});
    ValueId s = pinned ? g.int_value(0) : g.symint();
    if (!pinned) g.op("et_vk.select_as_symint.default", {pos, g.int_value(0), g.int_value(0), s});
    y = g.tensor_like(DType::F32);
    g.op("test.add_symint", {x, s, y});
    g.output(y);
    return ExecutableGraph::build(std::move(g), gpu(), &test_registry());
  };
  ValueId p1, x1, y1, p2, x2, y2;
  auto live = make(false, p1, x1, y1);
  auto pinned = make(true, p2, x2, y2);
  std::vector<float> xv = {1, 2, 3, 4};
  for (int32_t step : {0, 5, 9}) {
    std::vector<int32_t> p = {step};
    for (auto* e : {live.get(), pinned.get()}) {
      e->set_input(e == live.get() ? p1 : p2, {1}, std::span<const int32_t>(p));
      e->set_input(e == live.get() ? x1 : x2, {4}, std::span<const float>(xv));
      e->execute();
    }
    auto a = live->read_f32(y1), b = pinned->read_f32(y2);
    EXPECT_EQ(a[0], 1.0f + float(step));
    if (step == 0) EXPECT_EQ(a, b);
    else EXPECT_NE(a, b) << "a pinned SymInt must diverge from the live one";
  }
}

TEST(Graph, BadInputsGiveClearErrorsAndGraphStaysUsable) {
  Graph g;
  ValueId a = g.input("a", DType::F32, {4, 8});
  ValueId y = g.tensor_like(DType::F32);
  g.op("aten.relu.default", {a, y});
  g.output(y);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  std::vector<float> big(5 * 8, 1.0f);
  EXPECT_THROW(exe->set_input(a, {5, 8}, std::span<const float>(big)), LimitError);
  std::vector<float> v(32, -1.0f);
  EXPECT_THROW(exe->set_input(a, {32}, std::span<const float>(v)), InvalidArgument);  // rank
  std::vector<int32_t> iv(32, 1);
  EXPECT_THROW(exe->set_input(a, {4, 8}, std::span<const int32_t>(iv)), InvalidArgument);  // dtype
  std::vector<float> wrong_len(3, 1.0f);
  EXPECT_THROW(exe->set_input(a, {4, 8}, std::span<const float>(wrong_len)), InvalidArgument);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i) - 10.0f;
  exe->set_input(a, {4, 8}, std::span<const float>(v));
  exe->execute();
  auto out = exe->read_f32(y);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(out[i], std::max(v[i], 0.0f));
}

TEST(Graph, UnknownOpAndBadArgumentsNameTheNode) {
  {
    Graph g;
    ValueId a = g.input("a", DType::F32, {4});
    g.op("aten.no_such_op.default", {a}, "my_node");
    try {
      ExecutableGraph::build(std::move(g), gpu());
      FAIL();
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("aten.no_such_op.default"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("my_node"), std::string::npos) << e.what();
    }
  }
  {
    Graph g;
    ValueId a = g.input("a", DType::F32, {4}), b = g.input("b", DType::F32, {3});
    g.op("aten.add.Tensor", {a, b, g.real(1.0), g.tensor_like(DType::F32)}, "bad_add");
    try {
      ExecutableGraph::build(std::move(g), gpu());
      FAIL();
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("bad_add"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("broadcast"), std::string::npos) << e.what();
    }
  }
}

TEST(Graph, FoldedGridBeyond65535Workgroups) {
  // 256 * 65535 + 1000 elements need 65,539 workgroups of 256: the grid must fold to 2-D.
  const int64_t n = 256 * 65535 + 1000;
  Graph g;
  ValueId a = g.input("a", DType::F32, {n});
  ValueId b = const_f32(g, "b", {1}, {3.0f});
  ValueId y = g.tensor_like(DType::F32);
  g.op("aten.mul.Tensor", {a, b, y});
  g.output(y);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  std::vector<float> av(static_cast<size_t>(n));
  for (size_t i = 0; i < av.size(); ++i) av[i] = float(i % 4093);
  exe->set_input(a, {n}, std::span<const float>(av));
  exe->execute();
  auto out = exe->read_f32(y);
  for (size_t i = 0; i < out.size(); i += 997) ASSERT_EQ(out[i], 3.0f * av[i]) << i;
  EXPECT_EQ(out.back(), 3.0f * av.back());
}

TEST(Graph, ProfilerLabelsDurationsAndTrace) {
  if (!gpu().has_timestamps()) GTEST_SKIP() << "adapter has no timestamp-query";
  Graph g;
  ValueId a = g.input("a", DType::F32, {1024});
  ValueId y = g.tensor_like(DType::F32), z = g.tensor_like(DType::F32);
  g.op("aten.gelu.default", {a, g.string("none"), y}, "act", 0);
  g.op("aten.sigmoid.default", {y, z}, "gate", 1);
  g.output(z);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  exe->enable_profiling(true);
  std::vector<float> av(1024, 0.5f);
  exe->set_input(a, {1024}, std::span<const float>(av));
  exe->execute();
  exe->execute();
  Profiler* p = exe->profiler();
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->events().size(), 4u);
  for (const auto& e : p->events()) EXPECT_GT(e.dur_ns, 0.0) << e.name;
  EXPECT_EQ(p->events()[0].name, "act/ops/elementwise/unary/gelu_erf.wgsl:main");
  EXPECT_EQ(p->events()[1].layer, 1);
  auto j = nlohmann::json::parse(p->chrome_trace());
  EXPECT_EQ(j["traceEvents"].size(), 4u);
  EXPECT_EQ(j["traceEvents"][0]["ph"], "X");
  EXPECT_NE(p->table().find("aten.gelu.default"), std::string::npos);
  // Profiling off: no queries recorded.
  exe->enable_profiling(false);
  exe->execute();
  EXPECT_EQ(exe->profiler(), nullptr);
}

TEST(Graph, ViewsAliasTheirSourceWithoutDispatches) {
  // t = relu(x); v1 = view(t) [output]; v2 = view(t); y = v2 + c [output]; z = relu(y) reuses buffers.
  Graph g;
  ValueId x = g.input("x", DType::F32, {2, 6});
  ValueId t = g.tensor(DType::F32, {2, 6});
  g.op("aten.relu.default", {x, t});
  ValueId v1 = g.tensor(DType::F32, {3, 4}), v2 = g.tensor(DType::F32, {12});
  g.op("aten.view_copy.default", {t, g.int_list({3, 4}), v1});
  g.op("aten.view_copy.default", {t, g.int_list({-1}), v2});
  ValueId c = const_f32(g, "c", {12}, iota_f(12, 1.0f));
  ValueId y = g.tensor(DType::F32, {12});
  g.op("aten.add.Tensor", {v2, c, g.real(1.0), y});
  ValueId z = g.tensor(DType::F32, {12});
  g.op("aten.relu.default", {y, z});
  g.output(v1);
  g.output(z);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  EXPECT_EQ(exe->dispatch_count(), 3u);  // relu, add, relu: the views cost nothing
  auto xv = iota_f(12, 1.0f, -5.0f);
  exe->set_input(x, {2, 6}, std::span<const float>(xv));
  exe->execute();
  auto v = exe->read_f32(v1);
  ASSERT_EQ(exe->dims(v1), (Dims{3, 4}));
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], std::max(xv[i], 0.0f));
  auto zz = exe->read_f32(z);
  for (size_t i = 0; i < zz.size(); ++i) EXPECT_EQ(zz[i], std::max(xv[i], 0.0f) + float(i));
  // A live shape the fixed view cannot take is an error naming the node; the graph stays usable.
  auto small = iota_f(6, 1.0f);
  exe->set_input(x, {1, 6}, std::span<const float>(small));
  EXPECT_THROW(exe->execute(), InvalidArgument);
  exe->set_input(x, {2, 6}, std::span<const float>(xv));
  exe->execute();
  EXPECT_EQ(exe->read_f32(z), zz);
}
