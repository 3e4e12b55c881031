// OCR host stages against hand-computed values: resampling (OpenCV conventions), BGR/CHW packing, hull and
// minimum-area rectangles, DB boxes with the exact unclip, reading order, rec batching/packing, CTC decoding,
// the dictionary file, and recognize() wired to fake models (shapes passed, outputs checked, cls turning).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>

#include "ocr/db_postprocess.h"
#include "ocr/image_ops.h"
#include "ocr/rec_ctc.h"
#include "wgrt/error.h"
#include "wgrt/ocr.h"

using namespace wgrt;
using namespace wgrt::ocr;

namespace {

Image gray_row(std::vector<uint8_t> v) {
  Image im{int(v.size()), 1, {}};
  for (uint8_t x : v) im.rgb.insert(im.rgb.end(), {x, x, x});
  return im;
}
std::vector<uint8_t> red(const Image& im) {
  std::vector<uint8_t> r;
  for (size_t i = 0; i < im.rgb.size(); i += 3) r.push_back(im.rgb[i]);
  return r;
}
Image ramp(int w, int h) {
  Image im{w, h, {}};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) im.rgb.insert(im.rgb.end(), {uint8_t(10 * x + y), uint8_t(3 * y), uint8_t(x * y)});
  return im;
}

}  // namespace

TEST(OcrImage, BilinearMatchesOpenCvConvention) {
  EXPECT_EQ(red(resize_bilinear(gray_row({0, 100}), 4, 1)), (std::vector<uint8_t>{0, 25, 75, 100}));
  EXPECT_EQ(red(resize_bilinear(gray_row({0, 100, 200, 250}), 2, 1)), (std::vector<uint8_t>{50, 225}));
  const Image r = ramp(7, 5);
  EXPECT_EQ(resize_bilinear(r, 7, 5).rgb, r.rgb);
  EXPECT_THROW(resize_bilinear(r, 0, 5), InvalidArgument);
}

TEST(OcrImage, WarpAxisAlignedQuadIsACropAndBordersReplicate) {
  const Image r = ramp(9, 6);
  const Image c = warp_quad(r, Quad{{{2, 1}, {7, 1}, {7, 4}, {2, 4}}}, 5, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      for (int ch = 0; ch < 3; ++ch)
        EXPECT_EQ(c.rgb[(y * 5 + x) * 3 + ch], r.rgb[((y + 1) * 9 + x + 2) * 3 + ch]) << x << "," << y;
  const Image out = warp_quad(r, Quad{{{-20, -20}, {-10, -20}, {-10, -10}, {-20, -10}}}, 2, 2);  // all outside
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.rgb[i * 3], r.rgb[0]);
  EXPECT_THROW(warp_quad(r, Quad{{{0, 0}, {1, 1}, {2, 2}, {3, 3}}}, 2, 2), InvalidArgument);
}

TEST(OcrImage, Rotations) {
  Image im{3, 2, {}};
  for (uint8_t v : {1, 2, 3, 4, 5, 6}) im.rgb.insert(im.rgb.end(), {v, v, v});
  const Image r = rotate90_ccw(im);  // [[1,2,3],[4,5,6]] -> [[3,6],[2,5],[1,4]]
  EXPECT_EQ(r.width, 2);
  EXPECT_EQ(r.height, 3);
  EXPECT_EQ(red(r), (std::vector<uint8_t>{3, 6, 2, 5, 1, 4}));
  EXPECT_EQ(red(rotate180(im)), (std::vector<uint8_t>{6, 5, 4, 3, 2, 1}));
}

TEST(OcrImage, PackBgrChwNormalizesAndKeepsPadding) {
  Image im{1, 1, {10, 20, 30}};
  std::vector<float> d(3 * 2 * 1, -7.0f);
  pack_bgr_chw(im, {0.1f, 0.2f, 0.3f}, {0.5f, 0.25f, 2.0f}, d.data(), 2, 1);
  EXPECT_NEAR(d[0], (30 / 255.0 - 0.1) / 0.5, 1e-5);  // B first
  EXPECT_NEAR(d[2], (20 / 255.0 - 0.2) / 0.25, 1e-5);
  EXPECT_NEAR(d[4], (10 / 255.0 - 0.3) / 2.0, 1e-5);
  EXPECT_EQ(d[1], -7.0f);  // column 1 untouched
}

TEST(OcrGeometry, HullAndMinAreaRectOfRotatedRectangle) {
  std::vector<std::array<float, 2>> sq{{0, 0}, {4, 0}, {4, 4}, {0, 4}, {2, 2}, {1, 3}, {4, 2}};
  EXPECT_EQ(convex_hull(sq).size(), 4u);
  const double a = 30 * std::numbers::pi / 180;
  std::vector<std::array<float, 2>> pts;
  for (int i = 0; i <= 40; ++i)
    for (int j = 0; j <= 10; ++j) {
      const double u = i - 20.0, v = j - 5.0;
      pts.push_back({float(100 + u * std::cos(a) - v * std::sin(a)), float(50 + u * std::sin(a) + v * std::cos(a))});
    }
  const RotRect r = min_area_rect(pts);
  EXPECT_NEAR(std::max(r.half_u, r.half_v), 20, 1e-3);
  EXPECT_NEAR(std::min(r.half_u, r.half_v), 5, 1e-3);
  EXPECT_NEAR(r.cx, 100, 1e-3);
  EXPECT_NEAR(r.cy, 50, 1e-3);
  const Quad q = rect_corners(r);
  EXPECT_LT(q[0][0], q[1][0]);  // top-left left of top-right
  EXPECT_LT(q[1][1], q[2][1]);  // top-right above bottom-right
}

namespace {
std::vector<float> map_with(int w, int h, std::initializer_list<std::array<int, 5>> rects) {  // x0 y0 x1 y1 p%
  std::vector<float> m(size_t(w) * h, 0.05f);
  for (auto [x0, y0, x1, y1, p] : rects)
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) m[size_t(y) * w + x] = p / 100.0f;
  return m;
}
}  // namespace

TEST(OcrDb, RectangleUnclipExact) {
  // Pixel centers x 10..49, y 20..29: 39 x 9, d = 39 * 9 * 1.5 / (2 * 48) = 5.484.
  const auto m = map_with(100, 60, {{10, 20, 49, 29, 90}});
  auto b = db_boxes(m, 100, 60, 100, 60, {});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NEAR(b[0].score, 0.9, 0.02);
  EXPECT_EQ(b[0].box[0], (std::array<float, 2>{5, 15}));
  EXPECT_EQ(b[0].box[2], (std::array<float, 2>{54, 34}));
  b = db_boxes(m, 100, 60, 200, 120, {});  // mapped to a 2x larger image
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].box[0], (std::array<float, 2>{9, 29}));  // round(4.516 * 2), round(14.516 * 2)
  EXPECT_EQ(b[0].box[2], (std::array<float, 2>{109, 69}));
}

TEST(OcrDb, FiltersScoreSizeAndConnectivity) {
  EXPECT_TRUE(db_boxes(map_with(80, 40, {{10, 10, 60, 20, 45}}), 80, 40, 80, 40, {}).empty());  // score < 0.6
  EXPECT_TRUE(db_boxes(map_with(80, 40, {{10, 10, 11, 11, 99}}), 80, 40, 80, 40, {}).empty());  // too small
  EXPECT_EQ(db_boxes(map_with(80, 40, {{2, 2, 30, 12, 90}, {40, 20, 70, 30, 90}}), 80, 40, 80, 40, {}).size(), 2u);
  // diagonal neighbours join (8-connectivity): one box; one pixel apart: two (scores not checked here)
  Options any_score;
  any_score.box_threshold = 0;
  EXPECT_EQ(db_boxes(map_with(80, 40, {{2, 2, 30, 12, 90}, {31, 13, 60, 25, 90}}), 80, 40, 80, 40, any_score).size(), 1u);
  EXPECT_EQ(db_boxes(map_with(80, 40, {{2, 2, 30, 12, 90}, {32, 13, 60, 25, 90}}), 80, 40, 80, 40, any_score).size(), 2u);
  std::vector<float> bad(10);
  EXPECT_THROW(db_boxes(bad, 4, 4, 4, 4, {}), InvalidArgument);
}

TEST(OcrDb, RotatedTextGivesRotatedBox) {
  const int w = 120, h = 80;
  std::vector<float> m(size_t(w) * h, 0.0f);
  const double a = 20 * std::numbers::pi / 180;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double u = (x - 60) * std::cos(a) + (y - 40) * std::sin(a), v = -(x - 60) * std::sin(a) + (y - 40) * std::cos(a);
      if (std::fabs(u) <= 40 && std::fabs(v) <= 6) m[size_t(y) * w + x] = 0.95f;
    }
  const auto b = db_boxes(m, w, h, w, h, {});
  ASSERT_EQ(b.size(), 1u);
  const double ang = std::atan2(b[0].box[1][1] - b[0].box[0][1], b[0].box[1][0] - b[0].box[0][0]) * 180 / std::numbers::pi;
  EXPECT_NEAR(ang, 20, 2);
}

TEST(OcrDb, ReadingOrder) {
  auto box = [](float x, float y) { return DetBox{Quad{{{x, y}, {x + 10, y}, {x + 10, y + 5}, {x, y + 5}}}, 1}; };
  std::vector<DetBox> v{box(10, 100), box(50, 52), box(0, 55), box(5, 10)};
  sort_reading_order(v);
  EXPECT_EQ(v[0].box[0], (std::array<float, 2>{5, 10}));
  EXPECT_EQ(v[1].box[0], (std::array<float, 2>{0, 55}));  // same band (|dy| < 10): left first
  EXPECT_EQ(v[2].box[0], (std::array<float, 2>{50, 52}));
  EXPECT_EQ(v[3].box[0], (std::array<float, 2>{10, 100}));
}

TEST(OcrRec, BatchesAndPacking) {
  std::vector<Image> crops{ramp(100, 10), ramp(20, 10), ramp(60, 10), ramp(30, 10)};
  const auto b = rec_batches(crops, 3);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0], (std::vector<size_t>{1, 3, 2}));
  EXPECT_EQ(b[1], (std::vector<size_t>{0}));
  const Tensor t = rec_input(crops, b[0], 48, 320);
  EXPECT_EQ(t.dims, (std::vector<int64_t>{3, 3, 48, 320}));  // ratio 6 < 320 / 48
  EXPECT_EQ(t.data[(0 * 3 + 0) * 48 * 320 + 5 * 320 + 200], 0.0f);  // crop 1 is 96 wide: padding
  EXPECT_NE(t.data[(0 * 3 + 0) * 48 * 320 + 5 * 320 + 95], 0.0f);
  const Tensor wide = rec_input(crops, b[1], 48, 320);
  EXPECT_EQ(wide.dims, (std::vector<int64_t>{1, 3, 48, 480}));  // 48 * 10
  for (float v : wide.data) ASSERT_TRUE(v >= -1.0f && v <= 1.0f);
  EXPECT_EQ(rec_input(crops, b[1], 48, 192, 192).dims[3], 192);
  EXPECT_EQ(rec_input(crops, b[1], 48, 320, 0, 64).dims[3], 512);  // 480 rounded up to a multiple of 64
  EXPECT_EQ(rec_input(crops, b[0], 48, 320, 0, 64).dims[3], 320);  // cls: fixed, crop squeezed to fit
}

TEST(OcrRec, CtcGreedy) {
  const std::vector<std::string> dict{"", "a", "b", " "};
  auto step = [](int k, float p) {
    std::vector<float> v(4, (1 - p) / 3);
    v[size_t(k)] = p;
    return v;
  };
  std::vector<float> probs;
  for (auto [k, p] : std::vector<std::pair<int, float>>{{1, .9f}, {1, .8f}, {0, .9f}, {1, .7f}, {3, .6f}, {2, .5f}, {2, .9f}})
    for (float x : step(k, p)) probs.push_back(x);
  const Decoded d = ctc_greedy(probs, 7, 4, dict);
  EXPECT_EQ(d.text, "aa b");
  EXPECT_NEAR(d.score, (.9 + .7 + .6 + .5) / 4, 1e-6);
  std::vector<float> blank;
  for (int t = 0; t < 3; ++t)
    for (float x : step(0, .99f)) blank.push_back(x);
  EXPECT_EQ(ctc_greedy(blank, 3, 4, dict).text, "");
  EXPECT_EQ(ctc_greedy(blank, 3, 4, dict).score, 0.0f);
  EXPECT_THROW(ctc_greedy(probs, 7, 4, {"", "a"}), FormatError);
}

TEST(OcrRec, DictionaryFile) {
  const std::string dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name, std::ios::binary) << text;
    return dir + "/" + name;
  };
  EXPECT_EQ(load_dictionary(write("wgrt_dict_ok.txt", "a\r\n中\n")), (std::vector<std::string>{"", "a", "中", " "}));
  EXPECT_THROW(load_dictionary(write("wgrt_dict_empty.txt", "")), FormatError);
  EXPECT_THROW(load_dictionary(write("wgrt_dict_bad.txt", "a\n\xff\xfe\n")), FormatError);
  EXPECT_THROW(load_dictionary(dir + "/wgrt_no_such_dict.txt"), InvalidArgument);
}

namespace {
// det: a text rectangle at a fixed place of whatever map size it gets; rec: "ab" for every crop, recording
// the input shapes; cls: "180 degrees" with probability p180.
struct FakeDet : ModelRunner {
  std::vector<int64_t> seen;
  std::vector<int64_t> out_dims;  // empty: the right shape
  Tensor run(const Tensor& in) override {
    seen = in.dims;
    const int h = int(in.dims[2]), w = int(in.dims[3]);
    Tensor t{out_dims.empty() ? std::vector<int64_t>{1, 1, h, w} : out_dims, {}};
    t.data = map_with(w, h, {{w / 8, h / 4, w / 2, h / 4 + 8, 90}});
    t.data.resize(size_t(t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3]));
    return t;
  }
};
struct FakeRec : ModelRunner {
  std::vector<std::vector<int64_t>> seen;
  Tensor run(const Tensor& in) override {
    seen.push_back(in.dims);
    const int64_t n = in.dims[0], T = in.dims[3] / 8;
    Tensor t{{n, T, 4}, std::vector<float>(size_t(n * T * 4), 0.0f)};
    for (int64_t i = 0; i < n; ++i)
      for (int64_t s = 0; s < T; ++s) t.data[size_t((i * T + s) * 4 + (s == 1 ? 1 : s == 3 ? 2 : 0))] = 0.95f;
    return t;
  }
};
struct FakeCls : ModelRunner {
  float p180;
  explicit FakeCls(float p) : p180(p) {}
  Tensor run(const Tensor& in) override {
    EXPECT_EQ(in.dims[3], 192);
    Tensor t{{in.dims[0], 2}, {}};
    for (int64_t i = 0; i < in.dims[0]; ++i) t.data.insert(t.data.end(), {1 - p180, p180});
    return t;
  }
};
}  // namespace

TEST(OcrPipeline, FakeModelsShapesAndText) {
  FakeDet det;
  FakeRec rec;
  Image img = ramp(1000, 250);  // longer side over 960: scaled to 960 x 240, 240 / 32 = 7.5 rounds to even: 256
  const auto lines = recognize(img, {.det = &det, .rec = &rec, .dictionary = {"", "a", "b", " "}}, {});
  EXPECT_EQ(det.seen, (std::vector<int64_t>{1, 3, 256, 960}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "ab");
  EXPECT_NEAR(lines[0].score, 0.95, 1e-6);
  ASSERT_EQ(rec.seen.size(), 1u);
  EXPECT_EQ(rec.seen[0][2], 48);
  EXPECT_FALSE(lines[0].rotated180);
  FakeCls yes(0.95f), unsure(0.8f);
  EXPECT_TRUE(recognize(img, {.det = &det, .rec = &rec, .cls = &yes, .dictionary = {"", "a", "b", " "}}, {})[0].rotated180);
  EXPECT_FALSE(recognize(img, {.det = &det, .rec = &rec, .cls = &unsure, .dictionary = {"", "a", "b", " "}}, {})[0].rotated180);
  Image small = ramp(50, 20);  // det sizes round to multiples of 32, at least 32
  recognize(small, {.det = &det, .rec = &rec, .dictionary = {"", "a", "b", " "}}, {});
  EXPECT_EQ(det.seen, (std::vector<int64_t>{1, 3, 32, 64}));
}

TEST(OcrPipeline, BadModelOutputsAndArguments) {
  FakeDet det;
  FakeRec rec;
  const Image img = ramp(200, 100);
  det.out_dims = {1, 2, 96, 192};
  try {
    recognize(img, {.det = &det, .rec = &rec, .dictionary = {"", "a", "b", " "}}, {});
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("det model output has shape [1, 2, 96, 192], expected [1, 1, 96, 192]"), std::string::npos) << e.what();
  }
  det.out_dims.clear();
  EXPECT_THROW(recognize(img, {.det = &det, .rec = &rec, .dictionary = {"", "a"}}, {}), FormatError);  // 4 classes
  EXPECT_THROW(recognize(img, {.det = &det, .dictionary = {"", "a"}}, {}), InvalidArgument);
  EXPECT_THROW(recognize(Image{}, {.det = &det, .rec = &rec, .dictionary = {"", "a"}}, {}), InvalidArgument);
}
