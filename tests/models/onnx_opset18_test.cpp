// Opset 18 forms of the claimed operators (tests/corpus/onnx/opset18_forms.onnx, written by
// tests/golden/make_onnx_corpus.py): ReduceMean/ReduceMax with axes as an input, Split num_outputs with an
// uneven last chunk, Pad with an axes input, Resize with axes and antialias = 0, and a decomposed LayerNorm
// whose ReduceMeans take axes inputs (fused). Every output vs onnxruntime-node's CPU EP at two sizes,
// |d| <= 1e-5 + 1e-4 |ref|. (Debian's ONNX node tests are ONNX 1.12: opset 17 at most, so they hold no opset-18
// forms.)
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

TEST(OnnxOpset18, FormsMatchOnnxRuntime) {
  const std::string path = source_path("tests/corpus/onnx/opset18_forms.onnx");
  auto m = OnnxModel::load(path);
  EXPECT_EQ(m->opset(), 18);
  const auto dir = onnx_scratch("opset18");
  uint32_t seed = 3;
  for (const Dims& d : {Dims{2, 5, 3, 4}, Dims{1, 5, 6, 7}}) {
    int64_t n = 1;
    for (int64_t v : d) n *= v;
    std::mt19937 g(seed++);
    std::normal_distribution<float> dist;
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = dist(g);
    const auto out = m->run({OnnxTensor{"x", 1, d, x, {}}});
    NpyArray a;
    a.dims = d;
    a.f32 = x;
    const auto ref = ort_outputs(path, dir, {{"x", a}});
    ASSERT_EQ(out.size(), 3u);
    for (const auto& o : out) {
      ASSERT_EQ(ref.count(o.name), 1u) << o.name;
      EXPECT_EQ(o.dims, ref.at(o.name).dims) << o.name;
      EXPECT_EQ(count_far(o.f32, ref.at(o.name).f32, 1e-5f, 1e-4f), 0u)
          << o.name << " at " << ::testing::PrintToString(d) << ", max |d| " << max_abs_diff(o.f32, ref.at(o.name).f32);
    }
  }
  std::filesystem::remove_all(dir);
  onnx::HostTensor h;
  h.dims = {1, 5, 3, 4};
  EXPECT_EQ(onnx::build_onnx_graph(onnx::load_model(path), {{"x", h}}).layernorms_fused, 1u);
}

}  // namespace
}  // namespace wgrt::test
