#include "support/onnx_oracle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

#include "support/paths.h"

namespace wgrt::test {

namespace fs = std::filesystem;

fs::path onnx_scratch(const std::string& tag) {
  static std::atomic<int> n{0};
  const char* t = std::getenv("TMPDIR");
  fs::path p = fs::path(t ? t : "/tmp") / ("wgrt_onnx_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  fs::create_directories(p);
  return p;
}

std::map<std::string, NpyArray> ort_outputs(const std::string& model, const fs::path& dir, const std::map<std::string, NpyArray>& inputs) {
  static std::atomic<int> n{0};
  const fs::path out = dir / ("ort" + std::to_string(n++));
  std::string cmd = "node " + source_path("tests/golden/onnx_ort_run.mjs") + " " + model + " " + out.string();
  for (const auto& [name, a] : inputs) {
    const fs::path f = out.string() + "_" + name + ".npy";
    write_npy(f.string(), a);
    cmd += " " + name + "=" + f.string();
  }
  cmd += " >/dev/null";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "onnxruntime failed: " << cmd;
    return {};
  }
  std::map<std::string, NpyArray> r;
  for (const auto& e : fs::directory_iterator(out)) r.emplace(e.path().stem().string(), read_npy(e.path().string()));
  return r;
}

size_t count_far(const std::vector<float>& a, const std::vector<float>& b, float atol, float rtol) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= atol + rtol * std::fabs(b[i]))) ++bad;
  return bad;
}

float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

}  // namespace wgrt::test
