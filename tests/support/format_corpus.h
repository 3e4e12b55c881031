// Seed files for the format fuzzers (tests/corpus/gguf, tests/corpus/llama2c): small valid files made by
// GgufWriter / synth_model. tests/host/fuzz_formats_test.cpp regenerates the committed copies when run with
// WGRT_REGEN_CORPUS=1 and otherwise checks they still parse. Total size is kept under 50 KB.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wgrt::test {

struct CorpusSeed {
  std::string file;  // relative to tests/corpus, e.g. "gguf/tiny_llama_f32.gguf"
  std::vector<uint8_t> bytes;
};

// GGUF seeds (synthetic only: nothing from the real model files goes into the repository).
std::vector<CorpusSeed> gguf_corpus_seeds();
// In-memory seed with the real metadata (tokenizer arrays included) of the GGUF at `path` and one tiny
// tensor; empty if the file does not exist. Not committed.
std::vector<uint8_t> real_metadata_seed(const std::string& path);
// llama2.c checkpoint seeds ("llama2c/*.bin") and tokenizer seeds ("llama2c/*.tok").
std::vector<CorpusSeed> llama2c_corpus_seeds();

}  // namespace wgrt::test
