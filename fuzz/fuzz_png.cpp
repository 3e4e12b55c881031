// libFuzzer entry point for the OCR image reader (src/ocr/png_io.cpp over libpng): any input must decode or
// fail with a wgrt::Error, within small limits (a side at most 512, 64 Kpixel: the decoder's allocation is
// bounded by the header check, which is what this exercises). A decoded image goes through the resampling
// the pipeline applies (resize and a crop), so odd sizes reach them too.
#include <cstddef>
#include <cstdint>

#include "ocr/image_ops.h"
#include "wgrt/error.h"
#include "wgrt/ocr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const wgrt::ocr::PngLimits lim{.max_side = 512, .max_pixels = 1 << 16, .max_file_bytes = 1 << 20};
    const auto img = wgrt::ocr::decode_png({data, size}, "fuzz.png", lim);
    if (img.rgb.size() != size_t(img.width) * img.height * 3) __builtin_trap();
    wgrt::ocr::resize_bilinear(img, 1 + img.width / 3, 32);
    const float w = float(img.width), h = float(img.height);
    wgrt::ocr::warp_quad(img, {{{0, 0}, {w, h / 4}, {w, h}, {0, h * 0.75f}}}, 8, 4);
  } catch (const wgrt::Error&) {
  }
  return 0;
}
