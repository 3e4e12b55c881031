// The convolution epilogue (ops/conv/conv_epilogue.h) and the graph pass that fuses BatchNorm and elementwise
// chains into convolutions (ops/conv/conv_fusion.h):
// - the epilogue's text form: round trip and errors;
// - wgrt.convolution_epilogue.default on every route (implicit-GEMM on each GEMM kernel, grouped/depthwise
//   direct, transposed) against the double conv reference (tests/kernels/reference/vision_ref) followed by the
//   host epilogue, odd H/W, stride 2, dilation, groups, padding, channel counts not multiples of 4/8;
// - the pass on small graphs: what it folds and fuses, what it must leave alone (a chain value that is a graph
//   output or read elsewhere, broadcasts that grow the shape), and the fused graph's values against the same
//   graph run unfused. Tolerance |d| <= 1e-4 + 1e-4 |ref| (f32 accumulation over K <= 300).
#include "ops/conv/conv_epilogue.h"
#include "ops/conv/conv_fusion.h"
#include "reference/ops_a_reference.h"
#include "reference/vision_ref.h"
#include "vision_test_util.h"
#include "webgpu/device.h"

using namespace wgrt;
using wgrt::ops::EpilogueOp;
using wgrt::ops::EpilogueStep;
using wgrt::test::expect_close;
using wgrt::test::gpu;
using wgrt::test::OneOp;
namespace vref = wgrt::test::vref;

namespace {

// HardSwish's decomposed ONNX form after an affine (PP-LCNetV3): a*v + b, v * clip(v + 3, 0, 6) / 6.
const char* kHardSwish = "mul:0.75;add:-0.125;save;add:3;clip:0:6;mul_saved;div:6";
// Every other opcode (values stay away from 0 before rdiv: 1 - sigmoid(.) is in (0, 1)).
const char* kOthers = "relu;sigmoid;rsub:1;rdiv:0.5;tanh;hard_sigmoid:0.2:0.5;save;mul_saved";

std::vector<float> run_epilogue(const std::string& text, std::vector<float> v) {
  const auto steps = ops::parse_epilogue(text);
  for (float& x : v) x = ops::apply_epilogue(steps, x);
  return v;
}

std::vector<float> run_fused(const vref::Conv2d& c, const std::vector<float>& x, const std::vector<float>& w,
                             const std::vector<float>& b, const std::string& epi, bool transposed = false) {
  OneOp o;
  ValueId xi = o.input({c.N, c.C, c.H, c.W}, x);
  ValueId wt = transposed ? o.constant({c.C, c.O / c.groups, c.kh, c.kw}, w) : o.constant({c.O, c.C / c.groups, c.kh, c.kw}, w);
  ValueId bi = b.empty() ? o.g.none() : o.constant({c.O}, b);
  Graph& g = o.g;
  std::vector<ValueId> args = {xi, wt, bi, g.int_list({c.sh, c.sw}), g.int_list({c.ph, c.pw}), g.int_list({c.dh, c.dw}),
                               g.boolean(transposed), g.int_list({0, 0}), g.int_value(c.groups)};
  if (!epi.empty()) args.push_back(g.string(epi));
  o.build(epi.empty() ? "aten.convolution.default" : "wgrt.convolution_epilogue.default", args);
  return o.run();
}

void check_route(const vref::Conv2d& c, uint32_t seed, const std::string& epi) {
  auto x = wgrt::test::ref::random_floats(size_t(c.N * c.C * c.H * c.W), seed);
  auto w = wgrt::test::ref::random_floats(size_t(c.O * (c.C / c.groups) * c.kh * c.kw), seed + 1);
  auto b = wgrt::test::ref::random_floats(size_t(c.O), seed + 2);
  expect_close(run_fused(c, x, w, b, epi), run_epilogue(epi, vref::conv2d(c, x, w, b)), 1e-4, 1e-4,
               fmt::format("'{}' N{} C{} {}x{} O{} k{}x{} s{},{} p{},{} d{},{} g{}", epi, c.N, c.C, c.H, c.W, c.O, c.kh,
                           c.kw, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.groups));
}

}  // namespace

TEST(ConvEpilogue, TextRoundTripAndErrors) {
  const std::vector<EpilogueStep> s = {{EpilogueOp::Mul, 0.1f}, {EpilogueOp::Clip, -1.5f, 6}, {EpilogueOp::Save},
                                       {EpilogueOp::HardSigmoid, 1.0f / 6, 0.5f}, {EpilogueOp::MulSaved}};
  EXPECT_EQ(ops::parse_epilogue(ops::format_epilogue(s)), s);  // shortest round-trip floats: exact
  EXPECT_EQ(ops::format_epilogue(s).substr(0, 22), "mul:0.1;clip:-1.5:6;sa");
  EXPECT_TRUE(ops::parse_epilogue("").empty());
  for (const char* bad : {"mull:2", "mul", "clip:1", "relu:1", "add:x", "add:inf", "add:1;", ";relu", "add:1e99"})
    EXPECT_THROW(ops::parse_epilogue(bad), InvalidArgument) << bad;
  std::string eleven = "relu";
  for (int i = 0; i < 10; ++i) eleven += ";relu";
  EXPECT_THROW(ops::parse_epilogue(eleven), InvalidArgument);
  EXPECT_NO_THROW(ops::parse_epilogue(eleven.substr(5)));
  // The host reference itself: HardSwish's form on a few values.
  for (float v : {-5.0f, -1.0f, 0.0f, 2.0f, 9.0f}) {
    const float a = 0.75f * v - 0.125f;
    EXPECT_FLOAT_EQ(run_epilogue(kHardSwish, {v})[0], a * std::min(std::max(a + 3.0f, 0.0f), 6.0f) / 6.0f) << v;
  }
}

TEST(ConvEpilogue, GemmRouteOnEveryGemmKernel) {
  wgrt::test::for_each_gemm_kernel([&] {
    uint32_t seed = 300;
    for (vref::Conv2d c : {vref::Conv2d{1, 3, 7, 5, 70, 3, 3, 1, 1, 1, 1},         // O past one 64 tile
                           vref::Conv2d{2, 5, 11, 9, 7, 3, 2, 2, 3, 1, 0, 1, 2},   // stride 2/3, dilation 2
                           vref::Conv2d{1, 33, 9, 13, 13, 1, 1}}) {                // 1x1, odd channels
      for (const char* e : {kHardSwish, kOthers}) check_route(c, seed++, e);
    }
  });
}

TEST(ConvEpilogue, DirectRouteGroupedAndDepthwise) {
  uint32_t seed = 400;
  for (vref::Conv2d c : {vref::Conv2d{2, 6, 9, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, 6},     // depthwise, stride 2
                         vref::Conv2d{1, 10, 11, 13, 5, 5, 5, 1, 1, 2, 2, 1, 1, 5},  // depthwise-ish, O=5 groups 5
                         vref::Conv2d{1, 6, 7, 9, 9, 2, 3, 1, 2, 1, 0, 2, 1, 3}}) {  // grouped, dilation 2
    for (const char* e : {kHardSwish, kOthers}) check_route(c, seed++, e);
  }
}

TEST(ConvEpilogue, TransposedRoute) {
  // Against the unfused transposed kernel (value-tested by conv_transpose_test) followed by the host epilogue.
  vref::Conv2d c{1, 6, 5, 7, 9, 3, 2, 2, 2, 1, 0, 1, 1, 3};  // C 6 -> O 9, groups 3, stride 2
  auto x = wgrt::test::ref::random_floats(size_t(c.N * c.C * c.H * c.W), 500);
  auto w = wgrt::test::ref::random_floats(size_t(c.C * (c.O / c.groups) * c.kh * c.kw), 501);
  auto b = wgrt::test::ref::random_floats(size_t(c.O), 502);
  const auto plain = run_fused(c, x, w, b, "", true);
  ASSERT_EQ(plain.size(), size_t(9 * ((5 - 1) * 2 - 2 + 3) * ((7 - 1) * 2 + 2)));
  expect_close(run_fused(c, x, w, b, kHardSwish, true), run_epilogue(kHardSwish, plain), 1e-5, 1e-5, "transposed");
}

TEST(ConvEpilogue, BadEpilogueArgumentFailsTheBuild) {
  vref::Conv2d c{1, 2, 4, 4, 2, 1, 1};
  EXPECT_THROW(run_fused(c, std::vector<float>(32, 1), {1, 0, 0, 1}, {}, "relu;bogus:1"), InvalidArgument);
}

namespace {

// A graph built by `body` from input x [1, 3, 9, 11]; returns its outputs' values, fused or not.
struct PassRun {
  std::vector<std::vector<float>> outs;
  ops::ConvFusionStats stats;
  size_t nodes = 0;
};

template <typename F>
PassRun run_graph(F body, bool fuse) {
  Graph g;
  const Dims xd = {1, 3, 9, 11};
  ValueId x = g.input("x", DType::F32, xd);
  std::vector<ValueId> outs = body(g, x);
  for (ValueId o : outs) g.output(o);
  PassRun r;
  if (fuse) r.stats = ops::fuse_conv_epilogues(g);
  r.nodes = g.nodes().size();
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  const auto xv = wgrt::test::ref::random_floats(size_t(numel(xd)), 600);
  exe->set_input(x, xd, std::span<const float>(xv));
  exe->execute();
  for (ValueId o : outs) r.outs.push_back(exe->read_f32(o));
  return r;
}

ValueId scalar(Graph& g, float v) { return g.constant("s", DType::F32, {1}, ConstantData::from_vector(std::vector<float>{v})); }
ValueId vec(Graph& g, int64_t n, uint32_t seed, float lo = 0) {
  auto v = wgrt::test::ref::random_floats(size_t(n), seed);
  for (float& e : v) e = lo + std::abs(e);
  return g.constant("v", DType::F32, {n}, ConstantData::from_vector(std::move(v)));
}
// conv 3 -> 5, 3x3, stride 2, padding 1, with bias: out [1, 5, 5, 6].
ValueId conv(Graph& g, ValueId x) {
  ValueId w = g.constant("w", DType::F32, {5, 3, 3, 3}, ConstantData::from_vector(wgrt::test::ref::random_floats(135, 601)));
  ValueId y = g.tensor(DType::F32, {1, 5, 5, 6});
  g.op("aten.convolution.default", {x, w, vec(g, 5, 602, -0.5f), g.int_list({2, 2}), g.int_list({1, 1}), g.int_list({1, 1}),
                                    g.boolean(false), g.int_list({0, 0}), g.int_value(1), y});
  return y;
}
ValueId un(Graph& g, const char* op, ValueId x, std::vector<ValueId> extra = {}) {
  ValueId y = g.tensor(DType::F32, g.tensor_at(x).max_dims);
  std::vector<ValueId> a = {x};
  a.insert(a.end(), extra.begin(), extra.end());
  a.push_back(y);
  g.op(op, a);
  return y;
}

void expect_same(const PassRun& a, const PassRun& b) {
  ASSERT_EQ(a.outs.size(), b.outs.size());
  for (size_t i = 0; i < a.outs.size(); ++i) expect_close(a.outs[i], b.outs[i], 1e-5, 1e-5, fmt::format("output {}", i));
}

}  // namespace

TEST(ConvFusionPass, FoldsBatchNormAndFusesTheHardSwishChain) {
  auto body = [](Graph& g, ValueId x) {
    ValueId y = conv(g, x);
    ValueId bn = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten._native_batch_norm_legit_no_training.default",
         {y, vec(g, 5, 603, 0.5f), vec(g, 5, 604), vec(g, 5, 605), vec(g, 5, 606, 0.1f), g.real(0.1), g.real(1e-5), bn});
    y = un(g, "aten.mul.Tensor", bn, {scalar(g, 0.8f)});
    y = un(g, "aten.add.Tensor", y, {scalar(g, -0.25f), g.real(1.0)});
    ValueId t = un(g, "aten.add.Tensor", y, {scalar(g, 3.0f), g.real(1.0)});
    t = un(g, "aten.clamp.default", t, {g.real(0.0), g.real(6.0)});
    ValueId m = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten.mul.Tensor", {y, t, m});
    y = un(g, "aten.div.Tensor", m, {scalar(g, 6.0f)});
    ValueId s = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten.sub.Tensor", {scalar(g, 1.0f), y, g.real(1.0), s});  // 1 - y: the conv value second
    return std::vector<ValueId>{s};
  };
  const PassRun plain = run_graph(body, false), fused = run_graph(body, true);
  EXPECT_EQ(plain.nodes, 9u);
  EXPECT_EQ(fused.nodes, 1u);
  EXPECT_EQ(fused.stats.batch_norms_folded, 1u);
  EXPECT_EQ(fused.stats.convs_with_epilogue, 1u);
  EXPECT_EQ(fused.stats.nodes_removed, 8u);
  expect_same(plain, fused);
}

TEST(ConvFusionPass, StopsAtGraphOutputsOtherReadersAndBroadcasts) {
  // relu's output is a graph output: the conv absorbs relu and writes it; sigmoid stays.
  auto outputs = [](Graph& g, ValueId x) {
    ValueId r = un(g, "aten.relu.default", conv(g, x));
    return std::vector<ValueId>{r, un(g, "aten.sigmoid.default", r)};
  };
  PassRun a = run_graph(outputs, true);
  EXPECT_EQ(a.stats.convs_with_epilogue, 1u);
  EXPECT_EQ(a.nodes, 2u);
  expect_same(run_graph(outputs, false), a);
  // The conv output is read by the relu and by an add (not x * f(x)): nothing fuses.
  auto two_readers = [](Graph& g, ValueId x) {
    ValueId y = conv(g, x);
    ValueId r = un(g, "aten.relu.default", y);
    ValueId s = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten.add.Tensor", {y, r, g.real(1.0), s});
    return std::vector<ValueId>{s};
  };
  PassRun b = run_graph(two_readers, true);
  EXPECT_EQ(b.stats.convs_with_epilogue, 0u);
  EXPECT_EQ(b.nodes, 3u);
  expect_same(run_graph(two_readers, false), b);
  // A per-channel constant [1, 5, 1, 1] is not a scalar; a [1, 1, 1, 1, 1] scalar grows the rank: neither fuses.
  auto broadcasts = [](Graph& g, ValueId x) {
    ValueId y = conv(g, x);
    ValueId c = g.constant("pc", DType::F32, {1, 5, 1, 1}, ConstantData::from_vector(std::vector<float>{1, 2, 3, 4, 5}));
    ValueId m = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten.mul.Tensor", {y, c, m});
    ValueId y2 = conv(g, x);
    ValueId c5 = g.constant("c5", DType::F32, {1, 1, 1, 1, 1}, ConstantData::from_vector(std::vector<float>{2}));
    ValueId m2 = g.tensor(DType::F32, {1, 1, 5, 5, 6});
    g.op("aten.mul.Tensor", {y2, c5, m2});
    return std::vector<ValueId>{m, m2};
  };
  PassRun c = run_graph(broadcasts, true);
  EXPECT_EQ(c.stats.convs_with_epilogue, 0u);
  expect_same(run_graph(broadcasts, false), c);
}

namespace {

// ConvTranspose as exporters write it: transposed conv without bias, add of a [1, O, 1, 1] constant, batch norm,
// relu (PP-OCRv4 det's head). C 3 -> O 6, groups `groups`, kernel 2 = stride 2: out [1, 6, 18, 22].
ValueId conv_t_add_bn_relu(Graph& g, ValueId x, int64_t groups, bool sub) {
  const int64_t O = 6;
  ValueId w = g.constant("wt", DType::F32, {3, O / groups, 2, 2},
                         ConstantData::from_vector(wgrt::test::ref::random_floats(size_t(3 * O / groups * 4), 610)));
  const Dims od = {1, O, 18, 22};
  ValueId y = g.tensor(DType::F32, od);
  g.op("aten.convolution.default", {x, w, g.none(), g.int_list({2, 2}), g.int_list({0, 0}), g.int_list({1, 1}),
                                    g.boolean(true), g.int_list({0, 0}), g.int_value(groups), y});
  auto cv = wgrt::test::ref::random_floats(size_t(O), 611);
  ValueId c = g.constant("cb", DType::F32, {1, O, 1, 1}, ConstantData::from_vector(std::move(cv)));
  ValueId a = g.tensor(DType::F32, od);
  g.op(sub ? "aten.sub.Tensor" : "aten.add.Tensor", {y, c, g.real(sub ? 0.5 : 1.0), a});
  ValueId bn = g.tensor(DType::F32, od);
  g.op("aten._native_batch_norm_legit_no_training.default",
       {a, vec(g, O, 612, 0.5f), vec(g, O, 613), vec(g, O, 614), vec(g, O, 615, 0.1f), g.real(0.1), g.real(1e-5), bn});
  return un(g, "aten.relu.default", bn);
}

}  // namespace

TEST(ConvFusionPass, FoldsChannelAddAndBatchNormIntoATransposedConv) {
  // groups 1 and 3 (the transposed weight's output channel is group * O/groups + its second index), add and
  // subtract with alpha 0.5: one node left, values as the unfused graph.
  for (int64_t groups : {1, 3})
    for (bool sub : {false, true}) {
      auto body = [&](Graph& g, ValueId x) { return std::vector<ValueId>{conv_t_add_bn_relu(g, x, groups, sub)}; };
      const PassRun plain = run_graph(body, false), fused = run_graph(body, true);
      EXPECT_EQ(plain.nodes, 4u);
      EXPECT_EQ(fused.nodes, 1u) << groups << sub;
      EXPECT_EQ(fused.stats.channel_adds_folded, 1u);
      EXPECT_EQ(fused.stats.batch_norms_folded, 1u);
      EXPECT_EQ(fused.stats.convs_with_epilogue, 1u);
      expect_same(plain, fused);
    }
}

TEST(ConvFusionPass, ChannelAddFoldsOnlyPerChannelConstants) {
  // A plain conv with bias: + [5, 1, 1] folds (the constant first, alpha 1); c - y and a [1, 1, 1, 6]
  // (per-column) constant do not.
  auto body = [](Graph& g, ValueId x) {
    ValueId y = conv(g, x);
    ValueId c = g.constant("pc", DType::F32, {5, 1, 1}, ConstantData::from_vector(std::vector<float>{1, -2, 3, 0.5f, 5}));
    ValueId a = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten.add.Tensor", {c, y, g.real(1.0), a});
    ValueId y2 = conv(g, x);
    ValueId s = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten.sub.Tensor", {c, y2, g.real(1.0), s});
    ValueId y3 = conv(g, x);
    ValueId cw = g.constant("pw", DType::F32, {1, 1, 1, 6}, ConstantData::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}));
    ValueId a3 = g.tensor(DType::F32, {1, 5, 5, 6});
    g.op("aten.add.Tensor", {y3, cw, g.real(1.0), a3});
    return std::vector<ValueId>{a, s, a3};
  };
  const PassRun plain = run_graph(body, false), fused = run_graph(body, true);
  EXPECT_EQ(fused.stats.channel_adds_folded, 1u);
  EXPECT_EQ(fused.nodes, 5u);
  expect_same(plain, fused);
}
