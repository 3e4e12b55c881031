// `wgrt ocr` as a user runs it: bad images give one "wgrt: error:" line before any model loads (not a PNG,
// truncated, zero size, over the size limit, missing file, missing models), and a rendered image is read
// (text and --json output) with the models on wgrt's GPU path.
#include <gtest/gtest.h>
#include <png.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ocr/ort_runner.h"
#include "support/run_cli.h"
#include "wgrt/ocr.h"

using namespace wgrt;

namespace {

std::string write_bytes(const std::string& name, const std::vector<uint8_t>& b) {
  return test::text_file(name, std::string(b.begin(), b.end()));
}

std::vector<uint8_t> small_png() {
  const std::string p = (test::cli_test_dir() / "small.png").string();
  ocr::write_png(p, ocr::Image{4, 3, std::vector<uint8_t>(36, 200)});
  const std::string s = test::slurp(p);
  return {s.begin(), s.end()};
}

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (24 - 8 * i));
}

}  // namespace

TEST(OcrCli, BadImagesOneLineErrors) {
  test::expect_clean_error(test::run_cli("ocr " + test::text_file("t.png", "GIF89a....")), "is not a PNG image");
  auto b = small_png();
  test::expect_clean_error(test::run_cli("ocr " + write_bytes("cut.png", {b.begin(), b.begin() + b.size() / 2})),
                           "is truncated");
  auto z = b;
  put32(z, 16, 0);
  test::expect_clean_error(test::run_cli("ocr " + write_bytes("zero.png", z)), "has zero size (0 x 3 pixels)");
  auto big = b;
  put32(big, 16, 100000);
  test::expect_clean_error(test::run_cli("ocr " + write_bytes("big.png", big)),
                           "is too large: 100000 x 3 pixels (limit 16384 per side");
  test::expect_clean_error(test::run_cli("ocr /nonexistent/x.png"), "cannot open image '/nonexistent/x.png'");
  test::expect_clean_error(test::run_cli("ocr " + write_bytes("ok.png", b) + " --models /nonexistent"),
                           "OCR models not found in '/nonexistent': pass --models DIR");
  test::expect_clean_error(test::run_cli("ocr " + write_bytes("ok.png", b) + " --box-threshold 2"), "--box-threshold");
}

TEST(OcrCli, ReadsRenderedImageTextAndJson) {
  if (!test::ocr_models_present()) GTEST_SKIP() << "run scripts/setup.sh (bench/ort/node_modules)";
  const std::string img = std::string(WGRT_OCR_IMAGES) + "/img_01.png";  // 2 lines, bold sans 22 px
  const auto r = test::run_cli("ocr " + img + " --models " + test::ocr_model_dir(), "/dev/null", "timeout 600");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#88317"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3.14159265"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;
  EXPECT_EQ(r.out.rfind("[", 0), 0u) << r.out;
  const auto j = test::run_cli("ocr " + img + " --json --no-cls --models " + test::ocr_model_dir(), "/dev/null", "timeout 600");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["lines"].size(), 2u) << j.out;
  EXPECT_EQ(doc["lines"][1]["text"], "3.14159265");
  EXPECT_EQ(doc["lines"][0]["box"].size(), 4u);
  EXPECT_GT(doc["lines"][0]["score"].get<double>(), 0.8);
  EXPECT_EQ(doc["width"], ocr::read_png(img).width);
}
