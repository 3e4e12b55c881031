// wgrt::ocr::recognize: det -> DB boxes -> crops -> (cls) -> rec -> CTC (see wgrt/ocr.h for the stages).
#include <algorithm>
#include <cmath>
#include <fstream>

#include "ocr/db_postprocess.h"
#include "ocr/image_ops.h"
#include "ocr/rec_ctc.h"
#include "util/printable.h"
#include "wgrt/error.h"
#include "wgrt/ocr.h"

namespace wgrt::ocr {
namespace {

std::string dims_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = uint8_t(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((uint8_t(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

// PaddleOCR's DetResizeForTest (limit_type "max"): scale down so the longer side is at most `limit`, then
// round each side to a multiple of 32 (at least 32).
std::pair<int, int> det_size(int w, int h, int limit) {
  double ratio = std::max(w, h) > limit ? double(limit) / std::max(w, h) : 1.0;
  auto r32 = [](double v) { return std::max(32, int(std::nearbyint(double(int(v)) / 32.0)) * 32); };
  return {r32(w * ratio), r32(h * ratio)};
}

Image crop_box(const Image& img, const Quad& q) {
  auto dist = [](const std::array<float, 2>& a, const std::array<float, 2>& b) { return std::hypot(a[0] - b[0], a[1] - b[1]); };
  const int w = std::max(1, int(std::max(dist(q[0], q[1]), dist(q[2], q[3]))));
  const int h = std::max(1, int(std::max(dist(q[0], q[3]), dist(q[1], q[2]))));
  Image c = warp_quad(img, q, w, h);
  return double(h) / w >= 1.5 ? rotate90_ccw(c) : c;
}

void check_dims(const Tensor& t, size_t rank, const std::string& what, const std::string& expect) {
  size_t n = 1;
  for (int64_t d : t.dims) n *= d > 0 ? size_t(d) : 0;
  if (t.dims.size() != rank || n != t.data.size() || n == 0)
    throw FormatError(what + " model output has shape " + dims_str(t.dims) + ", expected " + expect);
}

}  // namespace

std::vector<std::string> load_dictionary(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InvalidArgument("cannot open the OCR dictionary '" + printable(path, 120) + "' (check the path)");
  std::vector<std::string> dict{""};
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!valid_utf8(line))
      throw FormatError("OCR dictionary '" + printable(path, 120) + "' line " + std::to_string(dict.size()) +
                        " is not valid UTF-8");
    dict.push_back(line);
  }
  if (dict.size() == 1) throw FormatError("OCR dictionary '" + printable(path, 120) + "' is empty");
  dict.push_back(" ");
  return dict;
}

std::vector<TextLine> recognize(const Image& image, const Models& models, const Options& opt) {
  if (!models.det || !models.rec) throw InvalidArgument("recognize: the det and rec models are required");
  if (image.width <= 0 || image.height <= 0 || image.rgb.size() != size_t(image.width) * image.height * 3)
    throw InvalidArgument("recognize: empty image or pixel buffer of the wrong size");
  if (models.dictionary.size() < 2) throw InvalidArgument("recognize: empty dictionary");

  // 1. det
  const auto [dw, dh] = det_size(image.width, image.height, opt.det_limit_side);
  Tensor det_in;
  det_in.dims = {1, 3, dh, dw};
  det_in.data.resize(size_t(3) * dw * dh);
  pack_bgr_chw(resize_bilinear(image, dw, dh), {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}, det_in.data.data(), dw, dh);
  const Tensor prob = models.det->run(det_in);
  check_dims(prob, 4, "det", "[1, 1, " + std::to_string(dh) + ", " + std::to_string(dw) + "]");
  if (prob.dims[0] != 1 || prob.dims[1] != 1 || prob.dims[2] != dh || prob.dims[3] != dw)
    throw FormatError("det model output has shape " + dims_str(prob.dims) + ", expected [1, 1, " +
                      std::to_string(dh) + ", " + std::to_string(dw) + "]");

  // 2. boxes, 3. crops
  std::vector<DetBox> boxes = db_boxes(prob.data, dw, dh, image.width, image.height, opt);
  sort_reading_order(boxes);
  std::vector<Image> crops;
  for (const DetBox& b : boxes) crops.push_back(crop_box(image, b.box));
  std::vector<bool> turned(crops.size(), false);

  // cls: [N, 2] (0, 180 degrees)
  if (models.cls)
    for (const auto& batch : rec_batches(crops, opt.rec_batch)) {
      const Tensor out = models.cls->run(rec_input(crops, batch, opt.rec_height, 192, 192));
      check_dims(out, 2, "cls", "[N, 2]");
      if (out.dims[0] != int64_t(batch.size()) || out.dims[1] != 2)
        throw FormatError("cls model output has shape " + dims_str(out.dims) + ", expected [" + std::to_string(batch.size()) + ", 2]");
      for (size_t n = 0; n < batch.size(); ++n)
        if (out.data[2 * n + 1] > out.data[2 * n] && out.data[2 * n + 1] > opt.cls_threshold) {
          crops[batch[n]] = rotate180(crops[batch[n]]);
          turned[batch[n]] = true;
        }
    }

  // 4. rec, 5. CTC
  std::vector<Decoded> dec(crops.size());
  for (const auto& batch : rec_batches(crops, opt.rec_batch)) {
    const Tensor out = models.rec->run(rec_input(crops, batch, opt.rec_height, opt.rec_min_width, 0, opt.rec_width_step));
    check_dims(out, 3, "rec", "[N, T, classes]");
    if (out.dims[0] != int64_t(batch.size()))
      throw FormatError("rec model output has shape " + dims_str(out.dims) + " for a batch of " + std::to_string(batch.size()));
    const size_t per = size_t(out.dims[1]) * out.dims[2];
    for (size_t n = 0; n < batch.size(); ++n)
      dec[batch[n]] = ctc_greedy(std::span<const float>(out.data).subspan(n * per, per), int(out.dims[1]),
                                 int(out.dims[2]), models.dictionary);
  }
  std::vector<TextLine> lines;
  for (size_t i = 0; i < boxes.size(); ++i)
    if (dec[i].score >= opt.drop_score && !dec[i].text.empty())
      lines.push_back({boxes[i].box, dec[i].text, dec[i].score, boxes[i].score, bool(turned[i])});
  return lines;
}

}  // namespace wgrt::ocr
