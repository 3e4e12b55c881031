// Every `wgrt synth` preset at its full published shape, checked by llama.cpp (tests/models/llamacpp_oracle.h):
// the file is written with its streamed weights left as a sparse run of zero bytes (GgufWriter::
// write_zero_data: no weight is computed, the file takes no disk), and llama.cpp loads it with no_alloc
// (hyperparameters, vocabulary, every tensor's shape against what its architecture expects, every tensor within
// the file) and makes a context; its parameter count must equal the preset's published total (plus the RoPE
// factor tensor llama.cpp counts) and its layer count the preset's. wgrt's own reader (load_gguf_llama) must
// accept the same file with the same shapes. Weights are not run here: the families' numerics are checked
// against llama.cpp on small files in families_llamacpp_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "formats/model_weights.h"
#include "llamacpp_oracle.h"
#include "models/synth.h"

namespace wgrt::test {
namespace {

namespace fs = std::filesystem;

class PresetsLlamaCpp : public ::testing::TestWithParam<std::string> {};

TEST_P(PresetsLlamaCpp, LlamaCppLoadsTheFullShapeFile) {
  ASSERT_TRUE(llamacpp_available()) << llamacpp_missing();
  const models::SynthConfig& p = models::synth_preset(GetParam());
  const fs::path path = fs::temp_directory_path() / ("wgrt_preset_" + std::to_string(::getpid()) + "_" + p.name + ".gguf");
  models::synth_gguf(p, GgmlType::F32, 1).write_zero_data(path.string());
  const uint64_t apparent = fs::file_size(path);
  EXPECT_GT(apparent, 4 * models::synth_param_count(p)) << "the file has every weight's bytes";

  const WeightSource ws = load_gguf_llama(path.string());
  const LlamaConfig& c = ws.config();
  EXPECT_EQ(c.arch, p.arch);
  EXPECT_EQ(c.dim, p.dim);
  EXPECT_EQ(c.n_layers, p.layers);
  EXPECT_EQ(c.vocab_size, p.vocab);
  EXPECT_EQ(c.head_dim, p.head_dim);

  std::istringstream out(llamacpp_helper("load", path.string()));
  fs::remove(path);
  uint64_t n_params = 0;
  int n_layer = 0;
  std::string line, desc;
  while (std::getline(out, line)) {
    if (line.starts_with("n_params ")) n_params = std::stoull(line.substr(9));
    if (line.starts_with("n_layer ")) n_layer = std::stoi(line.substr(8));
    if (line.starts_with("desc ")) desc = line.substr(5);
  }
  const uint64_t rope_factors = p.llama3_factor > 0 ? uint64_t(p.head_dim / 2) : 0;  // rope_freqs.weight
  EXPECT_EQ(n_params, models::synth_param_count(p) + rope_factors) << "llama.cpp's parameter count";
  EXPECT_EQ(n_layer, p.layers);
  std::printf("[ %s ] llama.cpp: %s, %llu parameters, %d layers (file %.2f GB, sparse)\n", p.name.c_str(),
              desc.c_str(), (unsigned long long)n_params, n_layer, double(apparent) / 1e9);
}

std::vector<std::string> preset_names() {
  std::vector<std::string> r;
  for (const auto& p : models::synth_presets()) r.push_back(p.name);
  return r;
}

INSTANTIATE_TEST_SUITE_P(Presets, PresetsLlamaCpp, ::testing::ValuesIn(preset_names()), [](const auto& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (ch == '-' || ch == '.') ch = '_';
  return n;
});

}  // namespace
}  // namespace wgrt::test
