// OnnxRunner: ocr::Tensor <-> wgrt::OnnxTensor around OnnxModel::run (see onnx_runner.h).
#include "ocr/onnx_runner.h"

#include "wgrt/error.h"

namespace wgrt::ocr {

OnnxRunner::OnnxRunner(const std::string& path, const OnnxOptions& options) : model_(OnnxModel::load(path, options)) {
  if (model_->inputs().empty() || model_->outputs().empty())
    throw FormatError("ONNX model '" + path + "' has no inputs or no outputs: not an OCR model");
}

void OnnxRunner::bound_input(const std::vector<int64_t>& max_dims) {
  const OnnxValueInfo& in = model_->inputs()[0];
  std::map<std::string, int64_t> bounds;
  for (size_t k = 0; k < in.dims.size() && k < max_dims.size(); ++k)
    if (in.dims[k] < 0 && !in.dim_params[k].empty() && max_dims[k] > 0) bounds[in.dim_params[k]] = max_dims[k];
  model_->bound_dims(bounds);
}

Tensor OnnxRunner::run(const Tensor& input) {
  OnnxTensor x;
  x.name = model_->inputs()[0].name;
  x.dims = input.dims;
  x.f32 = input.data;
  OnnxRunStats stats;
  std::vector<OnnxTensor> out = model_->run({x}, &stats);
  run_seconds += stats.run_seconds;
  compile_seconds += stats.compile_seconds;
  ++runs;
  if (out.empty() || out[0].elem_type != 1) throw FormatError("OCR model's first output is not a float tensor");
  return Tensor{std::move(out[0].dims), std::move(out[0].f32)};
}

ModelFiles model_files(const std::string& dir) {
  return {dir + "/ch_PP-OCRv4_det_infer.onnx", dir + "/ch_PP-OCRv4_rec_infer.onnx",
          dir + "/ch_ppocr_mobile_v2.0_cls_infer.onnx", dir + "/ppocr_keys_v1.txt"};
}

}  // namespace wgrt::ocr
