// The linear (MatMul + bias) and erf GELU fusions (src/models/onnx_graph/fuse_patterns.h) on
// tests/corpus/onnx/linear_gelu_patterns.onnx: the lowered graph has one aten.addmm per fused linear and one
// aten.gelu per fused GELU (both GELU orders exporters write), the two look-alikes stay node by node (a rank-4
// bias on a rank-3 product; a 0.6 where GELU has 0.5), and the outputs equal the unfused lowering and
// onnxruntime-node's CPU EP within |d| <= 1e-5 + 1e-4 |ref| at two input sizes (odd rows: 1x7, 3x5).
// The attention fusion on tests/corpus/onnx/attention_layernorm.onnx (one head, rank 3, no scale, k = q): one
// et_vk.sdpa and no Softmax left, same values as unfused and onnxruntime at 9 and 4 tokens.
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

size_t count_op(const Graph& g, const std::string& op) {
  size_t n = 0;
  for (const auto& node : g.nodes()) n += node.op == op;
  return n;
}

// The lowered graphs of `m` at dims d with the pattern fusions on and off.
std::pair<onnx::BuiltGraph, onnx::BuiltGraph> lowered(const onnx::Model& m, const Dims& d) {
  onnx::HostTensor x;
  x.dims = d;
  onnx::LowerOptions off;
  off.fuse_patterns = false;
  return {onnx::build_onnx_graph(m, {{"x", x}}), onnx::build_onnx_graph(m, {{"x", x}}, {}, off)};
}

// Runs `file` on normal(0, sd) input x of dims d fused, unfused (WGRT_NO_PATTERN_FUSION=1) and on onnxruntime;
// checks fused = unfused = onnxruntime within 1e-5 + 1e-4 |ref|. Returns the dispatch counts {fused, unfused}.
std::pair<size_t, size_t> check_values(const std::string& file, const Dims& d, uint32_t seed, float sd, const std::filesystem::path& dir) {
  std::mt19937 g(seed);
  std::normal_distribution<float> dist(0.0f, sd);
  std::vector<float> xv(size_t(d[0] * d[1] * d[2]));
  for (float& v : xv) v = dist(g);
  auto a = OnnxModel::load(file);
  OnnxRunStats sa, sb;
  const auto ya = a->run({OnnxTensor{"x", 1, d, xv, {}}}, &sa);
  ::setenv("WGRT_NO_PATTERN_FUSION", "1", 1);
  OnnxOptions o;
  o.share_device = a.get();
  const auto yb = OnnxModel::load(file, o)->run({OnnxTensor{"x", 1, d, xv, {}}}, &sb);
  ::unsetenv("WGRT_NO_PATTERN_FUSION");
  NpyArray in;
  in.dims = d;
  in.f32 = xv;
  const auto ref = ort_outputs(file, dir, {{"x", in}});
  if (ref.count("y") != 1) {
    ADD_FAILURE() << "no output y from onnxruntime";
    return {0, 0};
  }
  const std::vector<float>& r = ref.at("y").f32;
  EXPECT_EQ(ya[0].dims, ref.at("y").dims);
  EXPECT_EQ(count_far(ya[0].f32, yb[0].f32, 1e-5f, 1e-4f), 0u) << "fused vs unfused, max |d| " << max_abs_diff(ya[0].f32, yb[0].f32);
  EXPECT_EQ(count_far(ya[0].f32, r, 1e-5f, 1e-4f), 0u) << "fused vs onnxruntime, max |d| " << max_abs_diff(ya[0].f32, r);
  EXPECT_EQ(count_far(yb[0].f32, r, 1e-5f, 1e-4f), 0u) << "unfused vs onnxruntime, max |d| " << max_abs_diff(yb[0].f32, r);
  std::printf("%s [%lld, %lld, %lld]: %zu dispatches fused, %zu unfused; max |fused - ort| %.3g\n",
              std::filesystem::path(file).stem().c_str(), (long long)d[0], (long long)d[1], (long long)d[2], sa.dispatches,
              sb.dispatches, max_abs_diff(ya[0].f32, r));
  return {sa.dispatches, sb.dispatches};
}

TEST(OnnxPatternFusion, FusesLinearAndGeluAndKeepsTheValues) {
  const std::string file = source_path("tests/corpus/onnx/linear_gelu_patterns.onnx");
  const onnx::Model m = onnx::load_model(file);
  const auto dir = onnx_scratch("patterns");
  uint32_t seed = 3;
  for (const Dims& d : {Dims{1, 7, 12}, Dims{3, 5, 12}}) {
    SCOPED_TRACE("input " + std::to_string(d[0]) + "x" + std::to_string(d[1]));
    const auto [fused, plain] = lowered(m, d);
    EXPECT_EQ(fused.patterns_fused, 4u);
    EXPECT_EQ(count_op(fused.graph, "aten.addmm.default"), 2u);
    EXPECT_EQ(count_op(fused.graph, "aten.mm.default"), 1u);  // the rank-4 bias case
    EXPECT_EQ(count_op(fused.graph, "aten.gelu.default"), 2u);
    EXPECT_EQ(count_op(fused.graph, "aten.erf.default"), 1u);  // the 0.6 look-alike
    EXPECT_EQ(plain.patterns_fused, 0u);
    EXPECT_EQ(count_op(plain.graph, "aten.gelu.default"), 0u);
    EXPECT_EQ(count_op(plain.graph, "aten.erf.default"), 3u);
    const auto [nf, nu] = check_values(file, d, seed++, 1.5f, dir);
    EXPECT_EQ(nu, nf + 10) << "2 bias adds and 4 + 4 GELU nodes fewer";
  }
  std::filesystem::remove_all(dir);
}

TEST(OnnxPatternFusion, FusesAttentionAndKeepsTheValues) {
  const std::string file = source_path("tests/corpus/onnx/attention_layernorm.onnx");
  const onnx::Model m = onnx::load_model(file);
  const auto dir = onnx_scratch("attn");
  for (const Dims& d : {Dims{1, 9, 8}, Dims{1, 4, 8}}) {
    SCOPED_TRACE("tokens " + std::to_string(d[1]));
    const auto [fused, plain] = lowered(m, d);
    EXPECT_EQ(fused.patterns_fused, 1u);
    EXPECT_EQ(count_op(fused.graph, "et_vk.sdpa.default"), 1u);
    EXPECT_EQ(count_op(fused.graph, "aten._softmax.default"), 0u);
    EXPECT_EQ(count_op(plain.graph, "et_vk.sdpa.default"), 0u);
    EXPECT_EQ(count_op(plain.graph, "aten._softmax.default"), 1u);
    const auto [nf, nu] = check_values(file, d, 11, 1.0f, dir);
    EXPECT_LT(nf, nu);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wgrt::test
