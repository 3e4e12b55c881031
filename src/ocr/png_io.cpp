// PNG decode/encode through Debian's libpng 1.6 simplified API (png_image). The header (signature, IHDR size)
// is checked here first so that zero and oversized images get precise messages before libpng allocates.
#include <png.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "util/printable.h"
#include "wgrt/error.h"
#include "wgrt/ocr.h"

namespace wgrt::ocr {
namespace {

uint32_t be32(const uint8_t* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }

struct PngImage {  // RAII for png_image
  png_image img{};
  PngImage() { img.version = PNG_IMAGE_VERSION; }
  ~PngImage() { png_image_free(&img); }
};

// A complete PNG ends with an IEND chunk; walking the chunk lengths finds a cut-off file before libpng does.
bool truncated(std::span<const uint8_t> b) {
  size_t at = 8;
  while (at + 12 <= b.size()) {
    uint32_t len = be32(&b[at]);
    if (std::memcmp(&b[at + 4], "IEND", 4) == 0) return false;
    if (len > b.size()) return true;
    at += 12 + size_t(len);
  }
  return true;
}

}  // namespace

Image decode_png(std::span<const uint8_t> b, const std::string& name, const PngLimits& limits) {
  const std::string who = "PNG file '" + printable(name, 120) + "'";
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (b.size() < 8 || std::memcmp(b.data(), sig, 8) != 0)
    throw FormatError(who + " is not a PNG image (bad signature; wgrt ocr reads PNG only)");
  if (b.size() < 33 || std::memcmp(&b[12], "IHDR", 4) != 0)
    throw FormatError(who + " is truncated or corrupt: no IHDR header chunk");
  const int64_t w = be32(&b[16]), h = be32(&b[20]);
  if (w == 0 || h == 0)
    throw FormatError(who + " has zero size (" + std::to_string(w) + " x " + std::to_string(h) + " pixels)");
  if (w > limits.max_side || h > limits.max_side || w * h > limits.max_pixels)
    throw LimitError(who + " is too large: " + std::to_string(w) + " x " + std::to_string(h) +
                     " pixels (limit " + std::to_string(limits.max_side) + " per side and " +
                     std::to_string(limits.max_pixels / (1024 * 1024)) + " Mpixel; scale the image down)");
  if (truncated(b)) throw FormatError(who + " is truncated (no IEND chunk at its end)");
  PngImage p;
  if (!png_image_begin_read_from_memory(&p.img, b.data(), b.size()))
    throw FormatError(who + " is corrupt: " + printable(p.img.message, 80));
  p.img.format = PNG_FORMAT_RGB;
  Image out;
  out.width = int(p.img.width);
  out.height = int(p.img.height);
  out.rgb.resize(PNG_IMAGE_SIZE(p.img));
  png_color white{255, 255, 255};
  if (!png_image_finish_read(&p.img, &white, out.rgb.data(), 0, nullptr))
    throw FormatError(who + " is corrupt: " + printable(p.img.message, 80));
  return out;
}

Image read_png(const std::string& path, const PngLimits& limits) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw InvalidArgument("cannot open image '" + printable(path, 120) + "' (check the path)");
  const std::streamoff size = f.tellg();
  if (size < 0) throw InvalidArgument("cannot read image '" + printable(path, 120) + "' (not a regular file?)");
  if (size > limits.max_file_bytes)
    throw LimitError("PNG file '" + printable(path, 120) + "' is too large: " + std::to_string(size) +
                     " bytes (limit " + std::to_string(limits.max_file_bytes) + ")");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  f.seekg(0);
  if (!f.read(reinterpret_cast<char*>(bytes.data()), size))
    throw InvalidArgument("cannot read image '" + printable(path, 120) + "'");
  return decode_png(bytes, path, limits);
}

void write_png(const std::string& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0 || image.rgb.size() != size_t(image.width) * image.height * 3)
    throw InvalidArgument("write_png: image size and pixel buffer disagree");
  PngImage p;
  p.img.width = uint32_t(image.width);
  p.img.height = uint32_t(image.height);
  p.img.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&p.img, path.c_str(), 0, image.rgb.data(), 0, nullptr))
    throw InvalidArgument("cannot write PNG '" + printable(path, 120) + "': " + printable(p.img.message, 80));
}

}  // namespace wgrt::ocr
