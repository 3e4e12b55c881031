// The whole OCR pipeline (wgrt::ocr::recognize) on the rendered images (tests/ocr/render_text_images.py, made at
// test time by the ocr_images fixture), with the PP-OCRv4 det/rec models run by onnxruntime-node's CPU EP: this
// proves wgrt's host stages (resize, normalize, DB boxes, crops, batching, CTC) independently of its GPU path.
// Goal (issue 17): every line found, character accuracy >= 98% (ocr_eval.h says how it is computed).
#include <gtest/gtest.h>

#include "ocr/ocr_eval.h"
#include "ocr/ort_runner.h"
#include "wgrt/ocr.h"

using namespace wgrt;

TEST(OcrE2eOrt, RenderedImagesCpuEp) {
  if (!test::ort_present() || !test::ocr_models_present()) GTEST_SKIP() << "run scripts/setup.sh (bench/ort/node_modules)";
  test::OrtServer ort("cpu");
  test::OrtModel det(ort, test::ocr_model_dir() + "/ch_PP-OCRv4_det_infer.onnx");
  test::OrtModel rec(ort, test::ocr_model_dir() + "/ch_PP-OCRv4_rec_infer.onnx");
  ocr::Models models{.det = &det, .rec = &rec, .cls = nullptr,
                     .dictionary = ocr::load_dictionary(test::ocr_model_dir() + "/ppocr_keys_v1.txt")};
  const auto r = test::run_e2e(models, {});
  EXPECT_GE(r.lines, 60u);
  EXPECT_EQ(r.missed, 0u);
  EXPECT_GE(r.ink(), 0.98);
  EXPECT_GE(r.strict(), 0.93);  // spaces included: a guard against regressions in what the ink metric forgives
}

// The cls model (0/180 degrees) on upside-down images: with it the text reads as upright; without it, it does
// not (so the test can fail).
TEST(OcrE2eOrt, UpsideDownWithClsCpuEp) {
  if (!test::ort_present() || !test::ocr_models_present()) GTEST_SKIP() << "run scripts/setup.sh (bench/ort/node_modules)";
  test::OrtServer ort("cpu");
  test::OrtModel det(ort, test::ocr_model_dir() + "/ch_PP-OCRv4_det_infer.onnx");
  test::OrtModel rec(ort, test::ocr_model_dir() + "/ch_PP-OCRv4_rec_infer.onnx");
  test::OrtModel cls(ort, test::ocr_model_dir() + "/ch_ppocr_mobile_v2.0_cls_infer.onnx");
  ocr::Models models{.det = &det, .rec = &rec, .cls = &cls,
                     .dictionary = ocr::load_dictionary(test::ocr_model_dir() + "/ppocr_keys_v1.txt")};
  size_t turned = 0;
  const auto r = test::run_e2e(models, {}, true, 8, &turned);
  EXPECT_EQ(r.missed, 0u);
  EXPECT_GE(r.ink(), 0.97);
  EXPECT_GE(turned, r.lines * 9 / 10);
  models.cls = nullptr;
  const auto raw = test::run_e2e(models, {}, true, 8);
  EXPECT_LT(raw.ink(), 0.5);
}
