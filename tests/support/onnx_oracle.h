// onnxruntime-node's CPU EP as the reference for ONNX tests (tests/golden/onnx_ort_run.mjs; scripts/setup.sh
// installs onnxruntime-node into bench/ort/node_modules), and the comparison used against it.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "formats/npy.h"

namespace wgrt::test {

// A fresh scratch folder under $TMPDIR (or /tmp), unique to this process and tag.
std::filesystem::path onnx_scratch(const std::string& tag);

// Runs `model` on onnxruntime's CPU EP with float inputs {name: (dims, data)}; returns every output by name
// (file-safe names as `wgrt run` writes them). Fails the test (ADD_FAILURE) and returns {} if node fails.
std::map<std::string, NpyArray> ort_outputs(const std::string& model, const std::filesystem::path& dir,
                                            const std::map<std::string, NpyArray>& inputs);

// Elements where |a - b| > atol + rtol |b| (sizes must match; a size mismatch counts every element).
size_t count_far(const std::vector<float>& a, const std::vector<float>& b, float atol, float rtol);
float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b);

// f() must throw E with a message containing `part`.
template <typename E>
void expect_error_containing(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace wgrt::test
