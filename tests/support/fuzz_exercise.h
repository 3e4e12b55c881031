// What the format fuzzers do with one input: parse it and touch everything a caller could touch.
// Header-only and gtest-free so that both tests/host/fuzz_formats_test.cpp and the libFuzzer entry points in
// fuzz/ use it. Each function lets wgrt::Error escape from the parse itself (the expected outcome for bad
// input) and swallows wgrt::Error from per-item accessors so later items are still exercised; any other
// exception, crash or sanitizer report is a bug.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>
#include <wgrt/error.h>

#include "formats/gguf.h"
#include "formats/llama2c.h"
#include "formats/llama2c_tokenizer_file.h"
#include "formats/model_weights.h"

namespace wgrt::test {

// Returns the number of tensors dequantized (to keep the work observable).
inline size_t exercise_gguf(std::span<const uint8_t> data) {
  GgufFile g = GgufFile::from_bytes(std::vector<uint8_t>(data.begin(), data.end()), "fuzz.gguf");
  for (const auto& [key, v] : g.metadata()) {
    try { (void)g.get_u32(key); } catch (const Error&) {}
    try { (void)g.get_f32(key); } catch (const Error&) {}
    try { (void)g.get_string(key); } catch (const Error&) {}
    try { (void)g.get_array_strings(key); } catch (const Error&) {}
    try { (void)g.get_array_i32(key); } catch (const Error&) {}
    try { (void)g.get_array_f32(key); } catch (const Error&) {}
  }
  size_t n = 0;
  for (const auto& t : g.tensors()) {
    try {
      n += g.to_f32(t).size() > 0;
      if (t.type == GgmlType::Q4_0) (void)g.repack_q4_0_to_q4gsw(t);
    } catch (const Error&) {
    }
  }
  try {
    WeightSource w = load_gguf_llama(std::move(g));
    for (const auto& name : w.names()) (void)w.get(name).n_elements;
  } catch (const Error&) {
  }
  return n;
}

inline size_t exercise_llama2c(std::span<const uint8_t> data) {
  Llama2cFile f = Llama2cFile::from_bytes(std::vector<uint8_t>(data.begin(), data.end()), "fuzz.bin");
  WeightSource w = load_llama2c(std::move(f));
  size_t n = 0;
  for (const auto& name : w.names()) n += w.get(name).to_f32().size();
  return n;
}

inline size_t exercise_llama2c_tokenizer(std::span<const uint8_t> data) {
  return Llama2cTokenizerFile::parse(data, 0, "fuzz_tok.bin").pieces.size();
}

}  // namespace wgrt::test
