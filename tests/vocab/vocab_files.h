// Where the tests find llama.cpp's vocab-only GGUF files (extracted by scripts/vocab_vectors.sh, a CTest
// fixture): $WGRT_VOCAB_DIR, else the build's vocab/ folder. And a gtest parameter-name printer for vocab names.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

namespace wgrt::test {

inline std::string vocab_dir() {
  const char* e = std::getenv("WGRT_VOCAB_DIR");
  return e ? e : WGRT_VOCAB_DIR;
}

// ggml-vocab-<name>.gguf in vocab_dir().
inline std::string vocab_path(const std::string& name) {
  return (std::filesystem::path(vocab_dir()) / ("ggml-vocab-" + name + ".gguf")).string();
}

// "deepseek-llm" -> "deepseek_llm" (gtest names allow no '-').
struct VocabParamName {
  template <class Info>
  std::string operator()(const Info& info) const {
    std::string n = info.param;
    for (char& c : n) if (c == '-') c = '_';
    return n;
  }
};

}  // namespace wgrt::test
