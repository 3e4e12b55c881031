// PNG decoding (src/ocr/png_io.cpp): round trips through libpng's writer, alpha and gray inputs, and every
// bad-input class with its one-line error: bad signature, truncated, corrupt data, zero size, over the limits.
#include <gtest/gtest.h>
#include <png.h>

#include <cstdlib>
#include <fstream>

#include "wgrt/error.h"
#include "wgrt/ocr.h"

using namespace wgrt;
using ocr::Image;

namespace {

std::vector<uint8_t> encode(uint32_t w, uint32_t h, uint32_t format, const std::vector<uint8_t>& px) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  img.width = w, img.height = h, img.format = format;
  png_alloc_size_t size = 0;
  EXPECT_TRUE(png_image_write_get_memory_size(img, size, 0, px.data(), 0, nullptr));
  std::vector<uint8_t> out(size);
  EXPECT_TRUE(png_image_write_to_memory(&img, out.data(), &size, 0, px.data(), 0, nullptr));
  out.resize(size);
  return out;
}

Image pattern(int w, int h) {
  Image im{w, h, {}};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) im.rgb.insert(im.rgb.end(), {uint8_t(x * 7), uint8_t(y * 13), uint8_t(x ^ y)});
  return im;
}

template <class E>
std::string error_of(const std::vector<uint8_t>& bytes, const ocr::PngLimits& lim = {}) {
  try {
    ocr::decode_png(bytes, "t.png", lim);
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no error";
}

uint32_t crc(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

// A PNG whose IHDR declares w x h (valid CRC), followed by the IDAT/IEND of a real 1x1 image.
std::vector<uint8_t> with_size(uint32_t w, uint32_t h) {
  auto b = encode(1, 1, PNG_FORMAT_RGB, {1, 2, 3});
  auto put = [&](size_t at, uint32_t v) { for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (24 - 8 * i)); };
  put(16, w);
  put(20, h);
  put(29, crc(&b[12], 17));
  return b;
}

}  // namespace

TEST(OcrPng, RoundTripRgbOddSize) {
  const Image im = pattern(37, 5);
  const Image back = ocr::decode_png(encode(37, 5, PNG_FORMAT_RGB, im.rgb), "t.png");
  EXPECT_EQ(back.width, 37);
  EXPECT_EQ(back.height, 5);
  EXPECT_EQ(back.rgb, im.rgb);
}

TEST(OcrPng, FileRoundTrip) {
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/wgrt_ocr_png_rt.png";
  const Image im = pattern(3, 64);
  ocr::write_png(path, im);
  EXPECT_EQ(ocr::read_png(path).rgb, im.rgb);
  std::remove(path.c_str());
}

TEST(OcrPng, AlphaCompositedOnWhiteAndGrayExpanded) {
  // RGBA: opaque red, fully transparent, half-transparent black (sRGB compositing in libpng: mid gray-ish)
  const auto rgba = ocr::decode_png(encode(3, 1, PNG_FORMAT_RGBA, {255, 0, 0, 255, 9, 9, 9, 0, 0, 0, 0, 128}), "a.png");
  EXPECT_EQ(std::vector<uint8_t>(rgba.rgb.begin(), rgba.rgb.begin() + 6), (std::vector<uint8_t>{255, 0, 0, 255, 255, 255}));
  EXPECT_GT(rgba.rgb[6], 60);
  EXPECT_LT(rgba.rgb[6], 200);
  const auto gray = ocr::decode_png(encode(2, 1, PNG_FORMAT_GRAY, {10, 200}), "g.png");
  EXPECT_EQ(gray.rgb, (std::vector<uint8_t>{10, 10, 10, 200, 200, 200}));
}

TEST(OcrPng, BadSignature) {
  EXPECT_NE(error_of<FormatError>({'G', 'I', 'F', '8', '9', 'a', 0, 0, 0, 0}).find("is not a PNG image"), std::string::npos);
  EXPECT_NE(error_of<FormatError>({}).find("is not a PNG image"), std::string::npos);
}

TEST(OcrPng, TruncatedAtEveryLength) {
  const auto full = encode(40, 30, PNG_FORMAT_RGB, pattern(40, 30).rgb);
  for (size_t n = 8; n < full.size(); n += 7) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + n);
    const std::string e = error_of<FormatError>(cut);
    EXPECT_NE(e.find("'t.png' is truncated"), std::string::npos) << n << ": " << e;
  }
}

TEST(OcrPng, CorruptData) {
  auto b = encode(40, 30, PNG_FORMAT_RGB, pattern(40, 30).rgb);
  b[b.size() - 20] ^= 0x55;  // inside IDAT: CRC mismatch
  EXPECT_NE(error_of<FormatError>(b).find("'t.png' is corrupt: "), std::string::npos) << error_of<FormatError>(b);
  auto h = encode(4, 4, PNG_FORMAT_RGB, pattern(4, 4).rgb);
  h[24] = 3;  // IHDR bit depth 3 (invalid) with a stale CRC
  EXPECT_NE(error_of<FormatError>(h).find("is corrupt"), std::string::npos) << error_of<FormatError>(h);
}

TEST(OcrPng, ZeroSize) {
  EXPECT_NE(error_of<FormatError>(with_size(0, 10)).find("has zero size (0 x 10 pixels)"), std::string::npos);
  EXPECT_NE(error_of<FormatError>(with_size(10, 0)).find("has zero size"), std::string::npos);
}

TEST(OcrPng, OverLimits) {
  EXPECT_NE(error_of<LimitError>(with_size(16385, 2)).find("is too large: 16385 x 2 pixels (limit 16384 per side"),
            std::string::npos) << error_of<LimitError>(with_size(16385, 2));
  EXPECT_NE(error_of<LimitError>(with_size(10000, 10000)).find("64 Mpixel"), std::string::npos);
  ocr::PngLimits small{.max_side = 8, .max_pixels = 64, .max_file_bytes = 1 << 20};
  EXPECT_NE(error_of<LimitError>(encode(9, 1, PNG_FORMAT_RGB, pattern(9, 1).rgb), small).find("too large"), std::string::npos);
  EXPECT_NO_THROW(ocr::decode_png(encode(8, 8, PNG_FORMAT_RGB, pattern(8, 8).rgb), "ok.png", small));
}

TEST(OcrPng, MissingFile) {
  EXPECT_THROW(ocr::read_png("/nonexistent/dir/x.png"), InvalidArgument);
}

// Mutants of the committed fuzz seeds (tests/corpus/png, the fuzz_png target's corpus) and of a 40x30 image:
// bit flips, byte sets, truncation, insertion, big values over the IHDR size fields (deterministic xorshift).
// Each must decode to a consistent image or throw wgrt::Error; any other exception fails, a crash kills it.
TEST(OcrPng, MutationCorpus) {
  std::vector<std::vector<uint8_t>> seeds{encode(40, 30, PNG_FORMAT_RGB, pattern(40, 30).rgb)};
  for (const char* n : {"rgb_5x3", "rgba_4x4", "palette_7x2", "gray_3x9", "gray16_2x2", "interlaced_9x9"}) {
    std::ifstream f(std::string(WGRT_SOURCE_DIR) + "/tests/corpus/png/" + n + ".png", std::ios::binary);
    ASSERT_TRUE(f) << n;
    seeds.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    EXPECT_NO_THROW(ocr::decode_png(seeds.back(), n)) << n;
  }
  uint64_t s = 0x9E3779B97F4A7C15ull;
  auto next = [&] { return s ^= s << 13, s ^= s >> 7, s ^= s << 17; };
  const ocr::PngLimits lim{.max_side = 4096, .max_pixels = 1 << 22, .max_file_bytes = 1 << 20};
  size_t decoded = 0, refused = 0;
  for (int it = 0; it < 4000; ++it) {
    auto b = seeds[next() % seeds.size()];
    for (int m = 0, n = 1 + int(next() % 4); m < n; ++m) {
      const size_t pos = next() % b.size();
      switch (next() % 5) {
        case 0: b[pos] ^= uint8_t(1u << (next() % 8)); break;
        case 1: b[pos] = uint8_t(next()); break;
        case 2: b.resize(next() % (b.size() + 1)); break;
        case 3: b.insert(b.begin() + std::ptrdiff_t(pos), 1 + next() % 8, uint8_t(next())); break;
        case 4: if (b.size() > 24) for (int k = 0; k < 4; ++k) b[16 + (next() % 2) * 4 + k] = uint8_t(next()); break;
      }
      if (b.empty()) break;
    }
    try {
      const auto img = ocr::decode_png(b, "m.png", lim);
      ASSERT_EQ(img.rgb.size(), size_t(img.width) * img.height * 3);
      ++decoded;
    } catch (const Error&) {
      ++refused;
    }
  }
  std::printf("PNG mutants: %zu decoded, %zu refused with wgrt::Error\n", decoded, refused);
  EXPECT_GT(refused, 0u);
}
