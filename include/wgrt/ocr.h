// wgrt's OCR pipeline: PNG in, text lines with boxes and scores out, using the PP-OCR (PaddleOCR) model
// family: a DB text detector, an optional 0/180-degree direction classifier and a CTC text recognizer.
//
//   wgrt::ocr::Image img = wgrt::ocr::read_png("page.png");
//   auto lines = wgrt::ocr::recognize(img, {.det = &det, .rec = &rec, .dictionary = dict}, {});
//
// The stages follow PaddleOCR's inference pipeline (tools/infer/predict_system.py and its det/rec/cls
// predictors), re-implemented here without OpenCV or Clipper:
//   1. det input: resize so the longer side is at most det_limit_side, each side rounded to a multiple of 32;
//      BGR channel order; (x / 255 - mean) / std with ImageNet mean/std; NCHW float32.
//   2. DB post-processing of the det probability map: threshold, 8-connected components, convex hull and
//      minimum-area rectangle per component, box score (mean probability inside the rectangle), unclip
//      (the rectangle grown by area * unclip_ratio / perimeter on every side), boxes mapped back to the image.
//   3. each box cropped by a perspective warp (bicubic, edge-replicated) to an upright image, turned 90 degrees
//      counter-clockwise when it is at least 1.5x taller than wide; optionally turned 180 degrees when cls says so.
//   4. rec input: height rec_height (48), width by aspect ratio; crops sorted by aspect ratio and run in batches
//      of rec_batch, each batch padded (value 0 after (x / 255 - 0.5) / 0.5) to its widest crop.
//   5. CTC greedy decode: argmax per time step, repeats merged, blank (class 0) dropped; score = mean of the
//      kept steps' max probabilities; lines below drop_score are dropped.
// Lines come out in reading order: top to bottom, left to right within a line band.
//
// Threads: every function here is reentrant; one ModelRunner is used from one thread at a time.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace wgrt::ocr {

// An 8-bit RGB image, rows top to bottom, pixels interleaved R, G, B (size = width * height * 3).
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;
};

// Decoding limits: a PNG whose header declares more is refused before any pixel memory is allocated.
struct PngLimits {
  int max_side = 16384;                  // pixels, per side
  int64_t max_pixels = 64LL * 1024 * 1024;  // width * height
  int64_t max_file_bytes = 256LL << 20;
};

// Decodes a PNG (any bit depth and color type libpng reads: gray, palette, RGB, with or without alpha,
// interlaced or not) into RGB8. Alpha is composited onto white; 16-bit samples are reduced to 8 bits.
// Errors (FormatError, one line naming the file): not a PNG (bad signature), truncated file, corrupt data
// (libpng's reason quoted), zero width or height; LimitError: a side or pixel count over `limits`;
// InvalidArgument: the file cannot be opened. Uses Debian's libpng 1.6 (simplified API).
Image read_png(const std::string& path, const PngLimits& limits = {});
Image decode_png(std::span<const uint8_t> bytes, const std::string& name, const PngLimits& limits = {});
// Writes RGB8 as a PNG (for debugging and tests). Throws InvalidArgument when the file cannot be written.
void write_png(const std::string& path, const Image& image);

// A dense float32 tensor, row-major, for model inputs and outputs.
struct Tensor {
  std::vector<int64_t> dims;
  std::vector<float> data;
};

// One model (det, rec or cls): takes one float32 NCHW input, returns its first output.
//   det: [1, 3, H, W] -> [1, 1, H, W] text probability;  rec: [N, 3, 48, W] -> [N, W / 8, classes] softmax
//   probabilities;  cls: [N, 3, 48, 192] -> [N, 2] softmax (0 degrees, 180 degrees).
// Implementations: wgrt's ONNX runtime on the GPU (src/ocr/onnx_runner.h), onnxruntime in the tests.
class ModelRunner {
 public:
  virtual ~ModelRunner() = default;
  virtual Tensor run(const Tensor& input) = 0;
};

struct Models {
  ModelRunner* det = nullptr;  // required
  ModelRunner* rec = nullptr;  // required
  ModelRunner* cls = nullptr;  // optional: 180-degree direction classifier
  // rec classes: [0] is the CTC blank, then the dictionary's lines, then " " (see load_dictionary).
  std::vector<std::string> dictionary;
};

struct Options {
  int det_limit_side = 960;     // pixels: the longer side of the det input at most this (smaller images stay)
  float det_threshold = 0.3f;   // probability above which a det pixel is text
  float box_threshold = 0.6f;   // mean probability a box needs to be kept
  float unclip_ratio = 1.5f;    // growth of each box: area * ratio / perimeter pixels on every side
  int min_box_side = 3;         // det-map pixels: shorter sides are dropped
  int max_boxes = 1000;         // candidates considered, largest first
  int rec_height = 48;          // rec input height in pixels
  int rec_min_width = 320;      // pixels: each rec batch is at least this wide (PaddleOCR's 3x48x320 shape)
  int rec_width_step = 1;       // pixels: each rec batch's width rounded up to a multiple of this (more padding,
                                // fewer distinct input shapes: a runner that compiles per shape compiles less)
  int rec_batch = 6;            // crops per rec run
  float cls_threshold = 0.9f;   // cls score needed to turn a crop by 180 degrees
  float drop_score = 0.5f;      // lines whose rec score is below this are dropped
};

using Quad = std::array<std::array<float, 2>, 4>;  // image pixels: top-left, top-right, bottom-right, bottom-left

struct TextLine {
  Quad box;
  std::string text;       // UTF-8
  float score = 0;        // rec: mean max probability of the decoded steps, in [0, 1]
  float box_score = 0;    // det: mean text probability inside the box, in [0, 1]
  bool rotated180 = false;  // cls turned the crop
};

// The dictionary file: one class per line (UTF-8, "\n" or "\r\n"); returns blank "", the lines, then " ".
// Throws InvalidArgument (cannot open) or FormatError (empty file, or a line that is not valid UTF-8).
std::vector<std::string> load_dictionary(const std::string& path);

// The whole pipeline. Throws InvalidArgument (no det/rec runner, empty image, empty dictionary), FormatError
// (a model output of unexpected shape, or rec classes != dictionary size), and whatever the runners throw.
std::vector<TextLine> recognize(const Image& image, const Models& models, const Options& options = {});

}  // namespace wgrt::ocr
