// DB (Differentiable Binarization) post-processing of a text-detection probability map, after PaddleOCR's
// DBPostProcess (ppocr/postprocess/db_postprocess.py, box_type "quad", score_mode "fast"), written without
// OpenCV or Clipper: connected components replace contours, and the unclip of a rectangle is exact.
#pragma once
#include <span>
#include <vector>

#include "wgrt/ocr.h"

namespace wgrt::ocr {

struct DetBox {
  Quad box;     // image pixels (top-left, top-right, bottom-right, bottom-left), inside the image
  float score;  // mean probability inside the det-map rectangle
};

// A rectangle: center, unit axis u (the second axis is u turned 90 degrees clockwise in image coordinates,
// i.e. (-u.y, u.x)), half extents along each.
struct RotRect {
  float cx, cy, ux, uy, half_u, half_v;
};

// Points: (x, y) pairs. Convex hull (counter-clockwise in a y-up frame; fewer than 3 points are returned as
// they are), and the minimum-area enclosing rectangle of a point set (rotating calipers over the hull edges).
std::vector<std::array<float, 2>> convex_hull(std::vector<std::array<float, 2>> pts);
RotRect min_area_rect(const std::vector<std::array<float, 2>>& pts);
// The rectangle's corners as PaddleOCR's get_mini_boxes orders them: of the two leftmost corners the upper
// is first and the lower last; of the two rightmost the upper is second and the lower third.
Quad rect_corners(const RotRect& r);

// prob: [map_h, map_w] row-major text probabilities (the det model's output for an image resized to that
// size); the boxes are mapped back to an image of image_w x image_h. Returns the kept boxes, unsorted.
// Throws InvalidArgument when prob.size() != map_w * map_h.
std::vector<DetBox> db_boxes(std::span<const float> prob, int map_w, int map_h, int image_w, int image_h,
                             const Options& opt);

// Reading order (PaddleOCR's sorted_boxes): by top-left y then x, then neighbours whose top-left y differ by
// less than 10 pixels put left to right.
void sort_reading_order(std::vector<DetBox>& boxes);

}  // namespace wgrt::ocr
