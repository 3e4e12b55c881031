// Rec batching, packing and CTC decoding (see rec_ctc.h).
#include "ocr/rec_ctc.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ocr/image_ops.h"
#include "wgrt/error.h"

namespace wgrt::ocr {

std::vector<std::vector<size_t>> rec_batches(const std::vector<Image>& crops, int batch) {
  std::vector<size_t> order(crops.size());
  std::iota(order.begin(), order.end(), size_t(0));
  auto ratio = [&](size_t i) { return double(crops[i].width) / crops[i].height; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ratio(a) < ratio(b); });
  std::vector<std::vector<size_t>> out;
  for (size_t i = 0; i < order.size(); i += size_t(std::max(1, batch)))
    out.emplace_back(order.begin() + i, order.begin() + std::min(order.size(), i + size_t(std::max(1, batch))));
  return out;
}

Tensor rec_input(const std::vector<Image>& crops, std::span<const size_t> idx, int height, int min_width,
                 int fixed_width, int width_step) {
  double max_ratio = double(min_width) / height;
  for (size_t i : idx) max_ratio = std::max(max_ratio, double(crops[i].width) / crops[i].height);
  const int step = std::max(1, width_step);
  const int W = fixed_width > 0 ? fixed_width : (int(height * max_ratio) + step - 1) / step * step;
  Tensor t;
  t.dims = {int64_t(idx.size()), 3, height, W};
  const size_t per = size_t(3) * height * W;
  t.data.assign(per * idx.size(), 0.0f);
  for (size_t n = 0; n < idx.size(); ++n) {
    const Image& c = crops[idx[n]];
    const int rw = std::min(W, std::max(1, int(std::ceil(height * double(c.width) / c.height))));
    pack_bgr_chw(resize_bilinear(c, rw, height), {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, &t.data[n * per], W, height);
  }
  return t;
}

Decoded ctc_greedy(std::span<const float> probs, int steps, int classes, const std::vector<std::string>& dict) {
  if (size_t(classes) != dict.size())
    throw FormatError("rec model has " + std::to_string(classes) + " classes but the dictionary gives " +
                      std::to_string(dict.size()) + " (blank + lines + space): wrong dictionary for this model?");
  Decoded d;
  double sum = 0;
  int kept = 0, prev = -1;
  for (int t = 0; t < steps; ++t) {
    const float* p = &probs[size_t(t) * classes];
    const int best = int(std::max_element(p, p + classes) - p);
    if (best != 0 && best != prev) {
      d.text += dict[size_t(best)];
      sum += p[best];
      ++kept;
    }
    prev = best;
  }
  d.score = kept ? float(sum / kept) : 0.0f;
  return d;
}

}  // namespace wgrt::ocr
