// A ViT-B/16 image classifier as an ONNX file (tests/golden/make_vit_onnx.py: python3-onnx's helper API, the
// node forms torch.onnx.export writes for timm's VisionTransformer at opset 17, fixed-seed weights as external
// data, made here at test time under $TMPDIR) on wgrt vs onnxruntime-node's CPU EP (tests/golden/onnx_ort_run.mjs)
// on the same pixels: both outputs, the features [batch, 197, 768] after the final LayerNorm and the head's
// logits [batch, 1000].
//
// Tolerance (f32 on both sides, different summation orders): max abs error <= 5e-5 on both outputs, at
// depth 2 and 12. Reasoning: the outputs are LayerNorm-normalised (|features| <= ~5, logits |.| <= ~4); each
// dot product (K = 768 or 3072) and the softmax / LayerNorm reductions carry a relative rounding error of
// ~sqrt(K) * 2^-24 ~ 3e-6 in either engine, i.e. ~1e-5 absolute at |y| ~ 5; the pre-LN blocks add to a
// residual stream that LayerNorm re-normalises, so the error does not compound with depth (measured on
// lavapipe: 6.9e-6 / 5.3e-6 features / logits at depth 2, 5.5e-6 / 4.7e-6 at depth 12); 5e-5 leaves ~7x.
// A wrong op (a transposed weight, a missing bias, the wrong GELU, a softmax axis) moves outputs by O(0.1-1),
// and the test checks the outputs are not degenerate (features std and logits spread) and that the top-1
// class agrees.
//
// Depth 2 (same ops and widths, 15.7M parameters) runs at batch 1 and batch 2 through one loaded model (the
// batch is symbolic: host-folded Shape/Gather/Concat subgraphs feed the Reshapes), and its lowered graph has the
// attention on the packed projection (wgrt.sdpa_qkv, no head copies); the full ViT-B/16
// (depth 12, 86.6M parameters, 347 MB of generated external data) runs at batch 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "formats/onnx/onnx_file.h"
#include "models/onnx_graph/onnx_graph.h"
#include "support/onnx_oracle.h"
#include "support/paths.h"
#include "wgrt/onnx.h"

namespace wgrt::test {
namespace {

namespace fs = std::filesystem;

// Builds the model file with the committed script; returns its path.
std::string make_vit(const fs::path& dir, int depth) {
  const fs::path f = dir / ("vit_b16_d" + std::to_string(depth) + ".onnx");
  const std::string cmd = "/usr/bin/python3 " + source_path("tests/golden/make_vit_onnx.py") + " " + f.string() +
                          " --depth " + std::to_string(depth) + " >/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd << " failed: scripts/setup.sh installs python3-onnx";
  return f.string();
}

// Seeded xorshift32 pixels, uniform [-1, 1) (as bench/ort/bench_vit.mjs).
std::vector<float> pixels(size_t n, uint32_t s) {
  std::vector<float> v(n);
  for (float& x : v) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    x = float(double(s) / 4294967296.0 * 2 - 1);
  }
  return v;
}

float stddev(const std::vector<float>& v) {
  double m = 0, q = 0;
  for (float x : v) m += x;
  m /= double(v.size());
  for (float x : v) q += (x - m) * (x - m);
  return float(std::sqrt(q / double(v.size())));
}

void check_batch(OnnxModel& m, const std::string& file, const fs::path& dir, int64_t batch, uint32_t seed, float tol) {
  const std::vector<int64_t> dims{batch, 3, 224, 224};
  NpyArray px;
  px.dims = dims;
  px.f32 = pixels(size_t(batch) * 3 * 224 * 224, seed);
  const auto ref = ort_outputs(file, dir, {{"pixels", px}});
  ASSERT_EQ(ref.size(), 2u);
  OnnxRunStats st;
  const auto out = m.run({OnnxTensor{"pixels", 1, dims, px.f32, {}}}, &st);
  ASSERT_EQ(out.size(), 2u);
  for (const OnnxTensor& o : out) {
    SCOPED_TRACE(o.name + " at batch " + std::to_string(batch));
    ASSERT_TRUE(ref.count(o.name));
    const NpyArray& r = ref.at(o.name);
    EXPECT_EQ(o.dims, r.dims);
    const float err = max_abs_diff(o.f32, r.f32);
    float peak = 0;
    for (float v : r.f32) peak = std::max(peak, std::fabs(v));
    EXPECT_LE(err, tol);
    EXPECT_GE(stddev(r.f32), 0.5f) << "the reference output is flat: the generated weights are degenerate";
    std::printf("%s %s batch %lld: max abs error %.3g (max |ref| %.3f, std %.3f)\n", fs::path(file).filename().c_str(),
                o.name.c_str(), (long long)batch, err, peak, stddev(r.f32));
  }
  // Top-1 class per image agrees (the logits of the generated head are spread: std ~1).
  const NpyArray& rl = ref.at("logits");
  const size_t classes = size_t(rl.dims.back());
  for (int64_t b = 0; b < batch; ++b) {
    auto at = [&](const std::vector<float>& v) { return std::max_element(v.begin() + b * classes, v.begin() + (b + 1) * classes) - v.begin(); };
    EXPECT_EQ(at(out[1].f32), at(rl.f32)) << "image " << b;
  }
  std::printf("  wgrt: %.0f ms run, %.0f ms compile, %zu dispatches\n", st.run_seconds * 1e3, st.compile_seconds * 1e3, st.dispatches);
}

TEST(OnnxVit, ReducedDepthMatchesOnnxRuntimeAtTwoBatchSizes) {
  if (!fs::exists(source_path("bench/ort/node_modules/onnxruntime-node/package.json")))
    GTEST_FAIL() << "onnxruntime-node is missing: run scripts/setup.sh";
  const fs::path dir = onnx_scratch("vit2");
  const std::string file = make_vit(dir, 2);
  auto m = OnnxModel::load(file);
  ASSERT_EQ(m->inputs().size(), 1u);
  EXPECT_EQ(m->inputs()[0].dim_params[0], "batch");
  check_batch(*m, file, dir, 1, 7, 5e-5f);
  check_batch(*m, file, dir, 2, 8, 5e-5f);
  // Each block's attention is one wgrt.sdpa_qkv on the packed qkv projection: no head split (Transpose, three
  // Gathers) or merge (Transpose) copies; the one permute left is the patch embedding's flatten.
  onnx::HostTensor x;
  x.dims = {1, 3, 224, 224};
  const onnx::BuiltGraph g = onnx::build_onnx_graph(onnx::load_model(file), {{"pixels", x}});
  auto count = [&](const std::string& op) {
    return std::count_if(g.graph.nodes().begin(), g.graph.nodes().end(), [&](const auto& n) { return n.op == op; });
  };
  EXPECT_EQ(count("wgrt.sdpa_qkv.default"), 2);
  EXPECT_EQ(count("et_vk.sdpa.default"), 0);
  EXPECT_EQ(count("aten.permute_copy.default"), 1);
  fs::remove_all(dir);
}

TEST(OnnxVit, VitB16MatchesOnnxRuntime) {
  if (!fs::exists(source_path("bench/ort/node_modules/onnxruntime-node/package.json")))
    GTEST_FAIL() << "onnxruntime-node is missing: run scripts/setup.sh";
  const fs::path dir = onnx_scratch("vit12");
  const std::string file = make_vit(dir, 12);
  auto m = OnnxModel::load(file);
  check_batch(*m, file, dir, 1, 9, 5e-5f);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wgrt::test
