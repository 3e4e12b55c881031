// The PP-OCRv4 models on wgrt's GPU path (src/ocr/onnx_runner.h over include/wgrt/onnx.h, lavapipe in CI):
//  - each model against onnxruntime-node's CPU EP on the inputs the pipeline makes for a rendered image (the
//    synthetic-input comparison at several sizes is tests/models/onnx_ocr_models_test.cpp): max abs error of
//    the outputs within the fp32 tolerance stated below;
//  - the whole pipeline with the models on wgrt on four of the rendered images (one line each: Latin 18 px sans,
//    CJK 44 px, Latin 36 px, digits in mono; the rec model takes ~5-15 s a run on lavapipe, so CI runs a subset;
//    WGRT_OCR_ALL=1 runs all 24): every line found, ink accuracy >= 98%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "ocr/ocr_eval.h"
#include "ocr/onnx_runner.h"
#include "ocr/ort_runner.h"
#include "wgrt/ocr.h"

using namespace wgrt;


namespace {

// Output tolerance (max abs error vs ORT CPU, fp32 on both sides), the importer's bound: det and cls end in a
// sigmoid/softmax, rec in a softmax over 6,625 classes, so outputs are probabilities in [0, 1]; differences come
// from summation order in the convolutions and matmuls (the measured maxima are printed).
constexpr float kDetTol = 2e-4f, kRecTol = 2e-4f, kClsTol = 2e-4f;

// Records every input a pipeline stage gives its model, so wgrt and ORT can be compared on real inputs.
struct Recorder : ocr::ModelRunner {
  ocr::ModelRunner& inner;
  std::vector<ocr::Tensor> seen;
  explicit Recorder(ocr::ModelRunner& m) : inner(m) {}
  ocr::Tensor run(const ocr::Tensor& in) override {
    seen.push_back(in);
    return inner.run(in);
  }
};

float max_abs_diff(const ocr::Tensor& a, const ocr::Tensor& b) {
  EXPECT_EQ(a.dims, b.dims);
  if (a.data.size() != b.data.size()) return INFINITY;
  float m = 0;
  for (size_t i = 0; i < a.data.size(); ++i) m = std::max(m, std::fabs(a.data[i] - b.data[i]));
  return m;
}

class OcrWgrt : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test::ort_present() || !test::ocr_models_present()) return;
    files_ = ocr::model_files(test::ocr_model_dir());
    det_ = std::make_unique<ocr::OnnxRunner>(files_.det);
    rec_ = std::make_unique<ocr::OnnxRunner>(files_.rec);
    cls_ = std::make_unique<ocr::OnnxRunner>(files_.cls);
  }
  static void TearDownTestSuite() { det_.reset(), rec_.reset(), cls_.reset(); }
  void SetUp() override {
    if (!det_) GTEST_SKIP() << "run scripts/setup.sh (bench/ort/node_modules)";
  }
  static inline ocr::ModelFiles files_;
  static inline std::unique_ptr<ocr::OnnxRunner> det_, rec_, cls_;
};

void compare(ocr::ModelRunner& wgrt_model, const std::string& file, const ocr::Tensor& in, float tol, const char* what) {
  test::OrtServer ort("cpu");
  const ocr::Tensor ref = ort.run(file, in);
  const ocr::Tensor got = wgrt_model.run(in);
  const float err = max_abs_diff(got, ref);
  std::string dims;
  for (auto d : in.dims) dims += (dims.empty() ? "" : "x") + std::to_string(d);
  std::printf("%s [%s]: max |wgrt - ort cpu| = %.3g (tolerance %.0e)\n", what, dims.c_str(), err, tol);
  EXPECT_LE(err, tol) << what << " " << dims;
}

}  // namespace

TEST_F(OcrWgrt, ModelsMatchOrtCpuOnPipelineInputs) {
  // The inputs the pipeline makes for one rendered image (2 lines of Latin text and digits), recorded through ORT.
  test::OrtServer ort("cpu");
  test::OrtModel odet(ort, files_.det), orec(ort, files_.rec), ocls(ort, files_.cls);
  Recorder rdet(odet), rrec(orec), rcls(ocls);
  const auto img = ocr::read_png(std::string(WGRT_OCR_IMAGES) + "/img_01.png");  // 2 lines
  ocr::recognize(img, {.det = &rdet, .rec = &rrec, .cls = &rcls, .dictionary = ocr::load_dictionary(files_.dictionary)});
  ASSERT_EQ(rdet.seen.size(), 1u);
  ASSERT_GE(rrec.seen.size(), 1u);
  compare(*det_, files_.det, rdet.seen[0], kDetTol, "det (pipeline input)");
  for (const auto& in : rrec.seen) compare(*rec_, files_.rec, in, kRecTol, "rec (pipeline input)");
  compare(*cls_, files_.cls, rcls.seen[0], kClsTol, "cls (pipeline input)");
}

TEST_F(OcrWgrt, RenderedImagesOnWgrt) {
  const ocr::Models models{.det = det_.get(), .rec = rec_.get(), .cls = nullptr,
                           .dictionary = ocr::load_dictionary(files_.dictionary)};
  const std::vector<std::string> subset{"img_00.png", "img_05.png", "img_10.png", "img_15.png"};
  const bool all = std::getenv("WGRT_OCR_ALL") && std::string(std::getenv("WGRT_OCR_ALL")) == "1";
  const auto r = test::run_e2e(models, {}, false, 1000, nullptr, all ? nullptr : &subset);
  std::printf("wgrt runs: det %d (%.1f s), rec %d (%.1f s); graph compiles %.1f s\n", det_->runs, det_->run_seconds,
              rec_->runs, rec_->run_seconds, det_->compile_seconds + rec_->compile_seconds);
  EXPECT_GE(r.lines, all ? 60u : 4u);
  EXPECT_EQ(r.missed, 0u);
  EXPECT_GE(r.ink(), 0.98);
}
