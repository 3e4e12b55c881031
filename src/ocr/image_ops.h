// Pixel operations of the OCR pipeline on 8-bit RGB images (wgrt/ocr.h Image): resampling with OpenCV's
// conventions (pixel centers at +0.5, results rounded and saturated to 0..255) so that the models see what
// PaddleOCR feeds them, and the float NCHW packing of model inputs.
#pragma once
#include <array>

#include "wgrt/ocr.h"

namespace wgrt::ocr {

// Bilinear resize to out_w x out_h (>= 1), no antialiasing (cv2.resize INTER_LINEAR).
Image resize_bilinear(const Image& src, int out_w, int out_h);

// The out_w x out_h image whose corners (0,0), (out_w,0), (out_w,out_h), (0,out_h) map onto quad's four points
// (a perspective warp, cv2.warpPerspective): bicubic (a = -0.75), samples outside `src` take the nearest edge
// pixel. Throws InvalidArgument for a degenerate quad (three collinear points).
Image warp_quad(const Image& src, const Quad& quad, int out_w, int out_h);

Image rotate90_ccw(const Image& src);  // np.rot90: the top row becomes the left column, read bottom-up
Image rotate180(const Image& src);

// Writes the image into dst[c][y][x] (a CHW plane set of dst_w columns, at column 0) as
// (v / 255 - mean[c]) / std[c] where channel c takes B, G, R for c = 0, 1, 2 (PaddleOCR reads BGR images).
void pack_bgr_chw(const Image& img, const std::array<float, 3>& mean, const std::array<float, 3>& stdev,
                  float* dst, int dst_w, int dst_h);

}  // namespace wgrt::ocr
