// One built graph for several input sizes (OnnxOptions::dim_bounds, include/wgrt/onnx.h) on the seed models of
// tests/corpus/onnx: at each of 3-4 sizes the bounded model's outputs equal a fresh per-size build (same
// kernels, |d| <= 1e-6 + 1e-5 |ref|) and onnxruntime-node's CPU EP (|d| <= 1e-5 + 1e-4 |ref|, the corpus
// bound of onnx_model_test.cpp); the weights are uploaded once (OnnxModel::counters), sizes that the graph
// cannot follow get their own graph with a stated reason, and inputs above a bound are one-line errors.
// GPU-resident chaining (run_gpu, OnnxTensor::gpu): an output bound as the input of another model on the same
// device, and re-fed to the same model, equals the host round trip.
#include <gtest/gtest.h>

#include <random>

#include "support/onnx_oracle.h"
#include "support/paths.h"
#include "wgrt/error.h"
#include "wgrt/onnx.h"

namespace wgrt::test {
namespace {

namespace fs = std::filesystem;
using Dims = std::vector<int64_t>;

std::vector<float> randn(const Dims& d, uint32_t seed) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  std::mt19937 g(seed);
  std::normal_distribution<float> dist;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(g);
  return v;
}

std::string corpus(const std::string& name) { return source_path("tests/corpus/onnx/" + name + ".onnx"); }

struct Case {
  const char* model;
  std::map<std::string, int64_t> bounds;
  std::vector<Dims> sizes;  // the first is below the bounds (the max dims are never run first)
  bool all_shared;          // every size runs on the one graph
};

class OnnxBoundedDims : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxBoundedDims, OneGraphServesSeveralSizes) {
  const Case& c = GetParam();
  const fs::path dir = onnx_scratch(std::string("dyn_") + c.model);
  OnnxOptions o;
  o.dim_bounds = c.bounds;
  auto m = OnnxModel::load(corpus(c.model), o);
  OnnxOptions fo;
  fo.share_device = m.get();
  uint32_t seed = 11;
  size_t shared = 0;
  for (const Dims& d : c.sizes) {
    const std::vector<float> x = randn(d, seed++);
    OnnxRunStats st;
    const auto out = m->run({OnnxTensor{"x", 1, d, x, {}}}, &st);
    shared += st.shared_graph;
    if (!st.shared_graph) std::printf("%s at %s: own graph: %s\n", c.model, ::testing::PrintToString(d).c_str(), st.own_graph_reason.c_str());
    auto fresh_model = OnnxModel::load(corpus(c.model), fo);
    const auto fresh = fresh_model->run({OnnxTensor{"x", 1, d, x, {}}});
    NpyArray a;
    a.dims = d;
    a.f32 = x;
    const auto ref = ort_outputs(corpus(c.model), dir, {{"x", a}});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(ref.count("y"), 1u);
    EXPECT_EQ(out[0].dims, fresh[0].dims);
    EXPECT_EQ(out[0].dims, ref.at("y").dims);
    EXPECT_EQ(count_far(out[0].f32, fresh[0].f32, 1e-6f, 1e-5f), 0u) << c.model << " at " << ::testing::PrintToString(d) << " vs a fresh build";
    EXPECT_EQ(count_far(out[0].f32, ref.at("y").f32, 1e-5f, 1e-4f), 0u) << c.model << " at " << ::testing::PrintToString(d) << " vs onnxruntime";
    // The same size again: no lowering, no build, same values.
    const OnnxModelCounters before = m->counters();
    const auto again = m->run({OnnxTensor{"x", 1, d, x, {}}}, &st);
    EXPECT_FALSE(st.compiled);
    EXPECT_EQ(m->counters().host_lowerings, before.host_lowerings);
    EXPECT_EQ(again[0].f32, out[0].f32);
  }
  const OnnxModelCounters k = m->counters();
  std::printf("%s: %zu sizes, %zu on the shared graph, %zu graphs built, %llu weight bytes uploaded\n", c.model, c.sizes.size(),
              shared, k.graphs_built, (unsigned long long)k.weight_bytes_uploaded);
  if (c.all_shared) {
    EXPECT_EQ(shared, c.sizes.size());
    EXPECT_EQ(k.graphs_built, 1u) << "the weights must be uploaded once";
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, OnnxBoundedDims,
    ::testing::Values(Case{"conv_bn_relu", {{"N", 2}, {"H", 16}, {"W", 12}}, {{1, 3, 9, 7}, {2, 3, 16, 5}, {2, 3, 16, 12}, {1, 3, 4, 4}}, true},
                      Case{"shape_reshape", {{"N", 2}, {"H", 8}, {"W", 6}}, {{2, 3, 4, 5}, {1, 3, 7, 3}, {2, 3, 8, 6}}, true},
                      Case{"attention_layernorm", {{"T", 16}}, {{1, 5, 8}, {1, 13, 8}, {1, 16, 8}, {1, 1, 8}}, true},
                      Case{"pool_reduce", {{"N", 2}, {"H", 16}, {"W", 12}}, {{2, 3, 8, 6}, {1, 3, 13, 9}, {2, 3, 16, 12}}, true},
                      Case{"resize_transpose_convt", {{"N", 2}, {"H", 8}, {"W", 8}}, {{1, 3, 5, 4}, {2, 3, 3, 7}, {2, 3, 8, 8}}, true},
                      Case{"slice_split_pad_gemm", {{"L", 12}}, {{2, 9}, {2, 4}, {2, 12}}, false}),
    [](const auto& info) { return std::string(info.param.model); });

TEST(OnnxBoundedDims, BadBoundsAndInputsAboveThemAreOneLineErrors) {
  OnnxOptions o;
  o.dim_bounds = {{"Q", 4}};
  expect_error_containing<InvalidArgument>([&] { OnnxModel::load(corpus("conv_bn_relu"), o); }, "no symbolic input dim of that name");
  o.dim_bounds = {{"H", 0}};
  expect_error_containing<InvalidArgument>([&] { OnnxModel::load(corpus("conv_bn_relu"), o); }, "out of range");
  o.dim_bounds = {{"N", 1}, {"H", 8}, {"W", 8}};
  auto m = OnnxModel::load(corpus("conv_bn_relu"), o);
  expect_error_containing<InvalidArgument>([&] { m->run({OnnxTensor{"x", 1, {1, 3, 9, 8}, randn({1, 3, 9, 8}, 1), {}}}); },
                                "ONNX input 'x' dim 2 ('H') is 9, above its bound 8");
  // Still usable; with above_bounds_compile the big input gets a graph of its own.
  OnnxRunStats st;
  m->run({OnnxTensor{"x", 1, {1, 3, 8, 8}, randn({1, 3, 8, 8}, 2), {}}}, &st);
  EXPECT_TRUE(st.shared_graph) << st.own_graph_reason;
  o.above_bounds_compile = true;
  auto m2 = OnnxModel::load(corpus("conv_bn_relu"), o);
  m2->run({OnnxTensor{"x", 1, {1, 3, 9, 8}, randn({1, 3, 9, 8}, 1), {}}}, &st);
  EXPECT_FALSE(st.shared_graph);
  EXPECT_NE(st.own_graph_reason.find("above its bound 8"), std::string::npos) << st.own_graph_reason;
  // A partial bound set (W unbounded) leaves the model on per-size graphs.
  o.dim_bounds = {{"H", 8}};
  auto m3 = OnnxModel::load(corpus("conv_bn_relu"), o);
  m3->run({OnnxTensor{"x", 1, {1, 3, 8, 8}, randn({1, 3, 8, 8}, 2), {}}}, &st);
  EXPECT_FALSE(st.shared_graph);
}

// An output kept on the GPU, bound as the input of a second model (same device) and re-fed to the first:
// values equal the host round trip bit for bit (the same graphs on the same data).
TEST(OnnxChaining, GpuOutputsFeedModelsWithoutAHostRoundTrip) {
  auto a = OnnxModel::load(corpus("attention_layernorm"));
  OnnxOptions o;
  o.share_device = a.get();
  auto b = OnnxModel::load(corpus("attention_layernorm"), o);
  const Dims d{1, 6, 8};
  const std::vector<float> x = randn(d, 5);
  // Host round trip.
  const auto h1 = a->run({OnnxTensor{"x", 1, d, x, {}}});
  const auto h2 = b->run({OnnxTensor{"x", 1, h1[0].dims, h1[0].f32, {}}});
  const auto h3 = a->run({OnnxTensor{"x", 1, h2[0].dims, h2[0].f32, {}}});
  // On the GPU.
  auto g1 = a->run_gpu({OnnxTensor{"x", 1, d, x, {}}});
  ASSERT_TRUE(g1[0].gpu);
  EXPECT_TRUE(g1[0].f32.empty());
  EXPECT_EQ(g1[0].dims, h1[0].dims);
  g1[0].name = "x";
  auto g2 = b->run_gpu({g1[0]});
  g2[0].name = "x";
  const auto g3 = a->run({g2[0]});  // re-fed to the first model, read on the host
  EXPECT_EQ(a->read(g1[0]), h1[0].f32);  // g1 survived the later runs of a
  EXPECT_EQ(b->read(g2[0]), h2[0].f32);
  EXPECT_EQ(g3[0].f32, h3[0].f32);
  // A GPU tensor of another device is refused; so is one whose dims disagree with its data.
  auto other = OnnxModel::load(corpus("attention_layernorm"));
  expect_error_containing<InvalidArgument>([&] { other->run({g2[0]}); }, "another device");
  OnnxTensor wrong = g2[0];
  wrong.dims = {1, 5, 8};
  expect_error_containing<InvalidArgument>([&] { a->run({wrong}); }, "the GPU tensor has 48 floats");
}

}  // namespace
}  // namespace wgrt::test
