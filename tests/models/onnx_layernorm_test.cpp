// The decomposed-LayerNorm fusion (src/models/onnx_graph/fuse_layernorm.h): the lowered graph has one
// aten.native_layer_norm per recognised pattern and none of the pattern's reductions (a chain over a
// non-trailing axis stays unfused), and the fused model's outputs equal the unfused lowering
// (OnnxOptions::fuse_layernorm = false) and onnxruntime-node's CPU EP within |d| <= 1e-5 + 1e-4 |ref|.
#include <gtest/gtest.h>

#include <random>

#include "formats/onnx/onnx_file.h"
#include "models/onnx_graph/onnx_graph.h"
#include "support/onnx_oracle.h"
#include "support/paths.h"
#include "wgrt/onnx.h"

namespace wgrt::test {
namespace {

using Dims = std::vector<int64_t>;

std::string corpus(const std::string& name) { return source_path("tests/corpus/onnx/" + name + ".onnx"); }

size_t count_op(const Graph& g, const std::string& op) {
  size_t n = 0;
  for (const auto& node : g.nodes()) n += node.op == op;
  return n;
}

struct Case {
  const char* model;
  Dims dims;
  size_t fused;     // patterns fused
  size_t reduces;   // wgrt.reduce_axis nodes left after fusion
  size_t unfused_reduces;
};

class OnnxLayerNormFusion : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxLayerNormFusion, FusesThePatternAndKeepsTheValues) {
  const Case& c = GetParam();
  const onnx::Model m = onnx::load_model(corpus(c.model));
  onnx::HostTensor x;
  x.dims = c.dims;
  const onnx::BuiltGraph fused = onnx::build_onnx_graph(m, {{"x", x}});
  onnx::LowerOptions off;
  off.fuse_layernorm = false;
  const onnx::BuiltGraph plain = onnx::build_onnx_graph(m, {{"x", x}}, {}, off);
  EXPECT_EQ(fused.layernorms_fused, c.fused);
  EXPECT_EQ(count_op(fused.graph, "aten.native_layer_norm.default"), c.fused);
  EXPECT_EQ(count_op(fused.graph, "wgrt.reduce_axis.default"), c.reduces);
  EXPECT_EQ(plain.layernorms_fused, 0u);
  EXPECT_EQ(count_op(plain.graph, "aten.native_layer_norm.default"), 0u);
  EXPECT_EQ(count_op(plain.graph, "wgrt.reduce_axis.default"), c.unfused_reduces);

  int64_t n = 1;
  for (int64_t d : c.dims) n *= d;
  std::mt19937 g(7);
  std::normal_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> xv(static_cast<size_t>(n));
  for (float& v : xv) v = dist(g);
  auto a = OnnxModel::load(corpus(c.model));
  OnnxOptions o;
  o.fuse_layernorm = false;
  o.share_device = a.get();
  auto b = OnnxModel::load(corpus(c.model), o);
  OnnxRunStats sa, sb;
  const auto ya = a->run({OnnxTensor{"x", 1, c.dims, xv, {}}}, &sa);
  const auto yb = b->run({OnnxTensor{"x", 1, c.dims, xv, {}}}, &sb);
  EXPECT_LT(sa.dispatches, sb.dispatches);
  const auto dir = onnx_scratch("ln");
  NpyArray in;
  in.dims = c.dims;
  in.f32 = xv;
  const auto ref = ort_outputs(corpus(c.model), dir, {{"x", in}});
  ASSERT_EQ(ref.count("y"), 1u);
  EXPECT_EQ(ya[0].dims, ref.at("y").dims);
  EXPECT_EQ(count_far(ya[0].f32, yb[0].f32, 1e-5f, 1e-4f), 0u) << "fused vs unfused, max |d| " << max_abs_diff(ya[0].f32, yb[0].f32);
  EXPECT_EQ(count_far(ya[0].f32, ref.at("y").f32, 1e-5f, 1e-4f), 0u) << "fused vs onnxruntime, max |d| " << max_abs_diff(ya[0].f32, ref.at("y").f32);
  EXPECT_EQ(count_far(yb[0].f32, ref.at("y").f32, 1e-5f, 1e-4f), 0u) << "unfused vs onnxruntime";
  std::printf("%s: %zu fused; %zu dispatches fused, %zu unfused; max |fused - ort| %.3g\n", c.model, c.fused, sa.dispatches,
              sb.dispatches, max_abs_diff(ya[0].f32, ref.at("y").f32));
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Corpus, OnnxLayerNormFusion,
                         ::testing::Values(Case{"layernorm_patterns", {2, 7, 16}, 2, 2, 6}, Case{"attention_layernorm", {1, 9, 8}, 1, 0, 2}),
                         [](const auto& info) { return std::string(info.param.model); });

}  // namespace
}  // namespace wgrt::test
