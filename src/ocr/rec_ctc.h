// Text recognition around the model: crops batched by aspect ratio and packed as PaddleOCR's TextRecognizer
// does (tools/infer/predict_rec.py, resize_norm_img), and CTC greedy decoding (ppocr/postprocess/
// rec_postprocess.py, CTCLabelDecode).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "wgrt/ocr.h"

namespace wgrt::ocr {

// Crop indices in the order rec runs them: by width / height ascending (stable), cut into batches of `batch`.
std::vector<std::vector<size_t>> rec_batches(const std::vector<Image>& crops, int batch);

// [N, 3, height, W] input for crops[idx...]: W = int(height * max(min_width / height, max w / h)); each crop is
// resized to height rows and min(W, ceil(height * w / h)) columns, normalized (v / 255 - 0.5) / 0.5 in BGR
// order, and padded with 0 on the right. W is then rounded up to a multiple of width_step; fixed_width > 0
// forces W (the cls model's 192).
Tensor rec_input(const std::vector<Image>& crops, std::span<const size_t> idx, int height, int min_width,
                 int fixed_width = 0, int width_step = 1);

struct Decoded {
  std::string text;
  float score = 0;  // mean of the kept steps' max probabilities; 0 for an empty text
};

// probs: [T, C] softmax probabilities of one sequence; dict[c] is class c's text (dict[0] the blank).
// Throws FormatError when C != dict.size().
Decoded ctc_greedy(std::span<const float> probs, int steps, int classes, const std::vector<std::string>& dict);

}  // namespace wgrt::ocr
