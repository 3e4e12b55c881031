// The Llama-family graph builder on synthetic GGUF models of each supported architecture, against the CPU
// reference forward pass: llama (interleaved RoPE), qwen2 (q/k/v bias, rotate-half RoPE), qwen3 (per-head
// q/k RMSNorm, rotate-half), with f32, f16, Q8_0 and Q4_0 weights (Q4_0 stays 4-bit on the GPU; the
// reference uses the same dequantized values). Prefill of 5 tokens then 6 decode steps on one graph.
// Tolerance: 1e-3 absolute on logits (values O(1); fp32 accumulation order differs from the reference).
#include <gtest/gtest.h>

#include "formats/gguf.h"
#include "formats/model_weights.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "model_test_util.h"
#include "models/llama_graph.h"
#include "support/synth_model.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

struct Case {
  const char* name;
  SynthSpec spec;
};

void check_against_reference(const SynthSpec& spec, models::WeightPolicy policy) {
  WeightSource w = load_gguf_llama(GgufFile::from_bytes(synth_llama_gguf(spec), "synth.gguf"));
  CpuLlama cpu(w.config(), w);
  models::LlamaGraphOptions o;
  o.context = 16;
  o.max_prefill = 5;
  o.weights = policy;
  models::LlamaGraph lg = models::build_llama_graph(w, o);
  auto exe = ExecutableGraph::build(std::move(lg.graph), gpu());
  std::vector<int32_t> tokens = {1, 7, 3, 30, 12, 5, 9, 21, 2, 17, 33};
  auto run = [&](size_t begin, size_t n) {
    std::vector<int32_t> chunk(tokens.begin() + long(begin), tokens.begin() + long(begin + n));
    std::vector<int32_t> pos = {int32_t(begin)};
    exe->set_input(lg.tokens, {1, int64_t(n)}, std::span<const int32_t>(chunk));
    exe->set_input(lg.input_pos, {1}, std::span<const int32_t>(pos));
    exe->execute();
    return exe->read_f32(lg.logits);
  };
  std::vector<float> ref;
  for (size_t i = 0; i < 5; ++i) ref = cpu.forward(tokens[i], int(i));
  std::vector<float> got = run(0, 5);
  EXPECT_LT(max_abs_diff(got, ref), 1e-3f) << spec.arch << " prefill";
  EXPECT_EQ(exe->read_i32(lg.next_token)[0], argmax(ref));
  for (size_t i = 5; i < tokens.size(); ++i) {
    ref = cpu.forward(tokens[i], int(i));
    got = run(i, 1);
    EXPECT_LT(max_abs_diff(got, ref), 1e-3f) << spec.arch << " decode pos " << i;
    EXPECT_EQ(exe->read_i32(lg.next_token)[0], argmax(ref)) << i;
  }
}

SynthSpec spec(const char* arch, GgmlType t) {
  SynthSpec s;
  s.arch = arch;
  s.dim = 64;
  s.hidden = 96;
  s.layers = 2;
  s.heads = 4;
  s.kv_heads = 2;
  s.vocab = 40;
  s.ctx = 32;
  s.matrix_type = t;
  s.qkv_bias = std::string(arch) == "qwen2";
  s.qk_norm = std::string(arch) == "qwen3";
  return s;
}

}  // namespace

TEST(LlamaArchitectures, LlamaF32) { check_against_reference(spec("llama", GgmlType::F32), models::WeightPolicy::Auto); }
TEST(LlamaArchitectures, LlamaQ4_0StaysFourBit) { check_against_reference(spec("llama", GgmlType::Q4_0), models::WeightPolicy::Auto); }
TEST(LlamaArchitectures, LlamaQ4_0AsF32) { check_against_reference(spec("llama", GgmlType::Q4_0), models::WeightPolicy::F32); }
TEST(LlamaArchitectures, LlamaF16AndQ8_0) {
  check_against_reference(spec("llama", GgmlType::F16), models::WeightPolicy::Auto);
  check_against_reference(spec("llama", GgmlType::Q8_0), models::WeightPolicy::Auto);
}
TEST(LlamaArchitectures, Qwen2BiasRotateHalf) { check_against_reference(spec("qwen2", GgmlType::Q4_0), models::WeightPolicy::Auto); }
TEST(LlamaArchitectures, Qwen3QkNorm) { check_against_reference(spec("qwen3", GgmlType::F32), models::WeightPolicy::Auto); }
TEST(LlamaArchitectures, UntiedOutput) {
  SynthSpec s = spec("llama", GgmlType::F32);
  s.tied = false;
  check_against_reference(s, models::WeightPolicy::Auto);
}
