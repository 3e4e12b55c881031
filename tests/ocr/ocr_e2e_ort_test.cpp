// The whole OCR pipeline (wgrt::ocr::recognize) on the rendered images (tests/ocr/render_text_images.py, made at
// test time by the ocr_images fixture), with the PP-OCRv4 det/rec models run by onnxruntime-node's CPU EP: this
// proves wgrt's host stages (resize, normalize, DB boxes, crops, batching, CTC) independently of its GPU path.
// Goal (issue 17): every line found, character accuracy >= 98% (ocr_eval.h says how it is computed).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ocr/image_ops.h"
#include "ocr/ocr_eval.h"
#include "ocr/ort_runner.h"
#include "wgrt/ocr.h"

using namespace wgrt;

namespace wgrt::test {

struct E2eResult {
  size_t lines = 0, missed = 0, distance = 0, chars = 0, ink_distance = 0, ink_chars = 0;
  double strict() const { return 1.0 - double(distance) / chars; }
  double ink() const { return 1.0 - double(ink_distance) / ink_chars; }
};

// Runs every manifest image through `models` and scores it; prints each wrong line.
// upside_down: every image turned 180 degrees first (the truth boxes turned with it).
E2eResult run_e2e(const ocr::Models& models, const ocr::Options& opt, bool upside_down = false, size_t max_images = 1000,
                  size_t* turned_lines = nullptr) {
  std::ifstream f(std::string(WGRT_OCR_IMAGES) + "/manifest.json");
  EXPECT_TRUE(f) << "run the ocr_images_setup test first (ctest -R ocr)";
  const auto manifest = nlohmann::json::parse(f);
  E2eResult r;
  size_t images = 0;
  for (const auto& m : manifest) {
    if (images++ == max_images) break;
    auto img = ocr::read_png(std::string(WGRT_OCR_IMAGES) + "/" + m["file"].get<std::string>());
    std::vector<TruthLine> truth;
    for (const auto& l : m["lines"]) {
      TruthLine t{l["text"], l["box"][0], l["box"][1], l["box"][2], l["box"][3]};
      if (upside_down) t = {t.text, img.width - t.x1, img.height - t.y1, img.width - t.x0, img.height - t.y0};
      truth.push_back(t);
    }
    if (upside_down) img = ocr::rotate180(img);
    const auto found = ocr::recognize(img, models, opt);
    for (const auto& f : found)
      if (turned_lines) *turned_lines += f.rotated180;
    for (const auto& s : score_lines(truth, found)) {
      ++r.lines;
      r.missed += s.found.empty();
      r.distance += std::min(s.distance, s.chars);
      r.chars += s.chars;
      r.ink_distance += std::min(s.ink_distance, s.ink_chars);
      r.ink_chars += s.ink_chars;
      if (s.distance)
        std::printf("  %s: '%s' read as '%s' (distance %zu, ink %zu)\n", m["file"].get<std::string>().c_str(),
                    s.truth.c_str(), s.found.c_str(), s.distance, s.ink_distance);
    }
  }
  std::printf("OCR e2e%s: %zu images, %zu lines, %zu missed; character accuracy: ink %.4f (%zu errors / %zu chars), "
              "strict %.4f (%zu / %zu)\n", upside_down ? " (upside down)" : "", std::min(manifest.size(), max_images), r.lines, r.missed, r.ink(), r.ink_distance, r.ink_chars,
              r.strict(), r.distance, r.chars);
  return r;
}

}  // namespace wgrt::test

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
