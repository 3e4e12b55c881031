#include "support/format_corpus.h"

#include <cstring>
#include <fstream>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "support/synth_model.h"

namespace wgrt::test {

std::vector<CorpusSeed> gguf_corpus_seeds() {
  std::vector<CorpusSeed> seeds;
  SynthSpec tiny;
  tiny.dim = 8, tiny.hidden = 16, tiny.layers = 1, tiny.heads = 2, tiny.kv_heads = 1, tiny.vocab = 12, tiny.ctx = 8;
  seeds.push_back({"gguf/tiny_llama_f32.gguf", synth_llama_gguf(tiny)});
  SynthSpec q = tiny;
  q.dim = 32, q.hidden = 32, q.vocab = 4;
  q.matrix_type = GgmlType::Q8_0;
  seeds.push_back({"gguf/tiny_llama_q8_0.gguf", synth_llama_gguf(q)});
  q.matrix_type = GgmlType::Q4_0;
  q.tied = false;
  seeds.push_back({"gguf/tiny_llama_q4_0_untied.gguf", synth_llama_gguf(q)});
  SynthSpec qw = tiny;
  qw.arch = "qwen2", qw.qkv_bias = true, qw.matrix_type = GgmlType::F16;
  seeds.push_back({"gguf/tiny_qwen2_bias_f16.gguf", synth_llama_gguf(qw)});
  qw.arch = "qwen3", qw.qkv_bias = false, qw.qk_norm = true, qw.matrix_type = GgmlType::F32;
  seeds.push_back({"gguf/tiny_qwen3_qknorm.gguf", synth_llama_gguf(qw)});

  GgufWriter w(2);
  w.set_alignment(64);
  w.set("u8", GgufValue::of_u8(1));
  w.set("i8", GgufValue::of_i8(-1));
  w.set("u16", GgufValue::of_u16(2));
  w.set("i16", GgufValue::of_i16(-2));
  w.set("u32", GgufValue::of_u32(3));
  w.set("i32", GgufValue::of_i32(-3));
  w.set("f32", GgufValue::of_f32(0.5f));
  w.set("bool", GgufValue::of_bool(true));
  w.set("str", GgufValue::of_string("s"));
  w.set("u64", GgufValue::of_u64(4));
  w.set("i64", GgufValue::of_i64(-4));
  w.set("f64", GgufValue::of_f64(0.25));
  std::vector<int32_t> ints = {1, -2, 3};
  w.set("arr_i32", GgufValue::array_of<int32_t>(GgufValueType::I32, ints));
  w.set("arr_str", GgufValue::array_of_strings({"a", "bc", ""}));
  w.set("nested", GgufValue::array_of_arrays({GgufValue::array_of_strings({"x"}),
                                              GgufValue::array_of<int32_t>(GgufValueType::I32, ints)}));
  w.add_tensor_raw("q4k", {256}, 12, std::vector<uint8_t>(144, 0x5A));
  std::vector<uint8_t> bf16(16);
  for (size_t i = 0; i < bf16.size(); i += 2) bf16[i + 1] = 0x3F;
  w.add_tensor_raw("bf16", {2, 4}, 30, bf16);
  w.add_tensor_f32("q4", {32}, synth_values(32, 9), GgmlType::Q4_0);
  seeds.push_back({"gguf/all_types_v2.gguf", w.to_bytes()});
  return seeds;
}

std::vector<uint8_t> real_metadata_seed(const std::string& path) {
  if (!std::ifstream(path)) return {};
  GgufFile real = GgufFile::open(path);
  GgufWriter rw(real.version());
  for (const auto& [k, v] : real.metadata()) rw.set(k, v);
  rw.add_tensor_f32("output_norm.weight", {4}, synth_values(4, 3));
  return rw.to_bytes();
}

std::vector<CorpusSeed> llama2c_corpus_seeds() {
  std::vector<CorpusSeed> seeds;
  seeds.push_back({"llama2c/tiny_shared.bin", synth_llama2c(8, 12, 1, 2, 1, 10, 4, 1)});
  seeds.push_back({"llama2c/tiny_unshared.bin", synth_llama2c(4, 6, 1, 2, 2, -6, 2, 2)});
  std::vector<uint8_t> tok;
  auto put = [&tok](const void* p, size_t n) {
    tok.insert(tok.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
  };
  const int32_t max_len = 6;
  put(&max_len, 4);
  const char* pieces[] = {"<unk>", "\n<s>\n", "<0x0A>", " a", "b", "", " once", "ab"};
  float score = 0.0f;
  for (const char* p : pieces) {
    int32_t len = int32_t(std::strlen(p));
    put(&score, 4);
    put(&len, 4);
    put(p, size_t(len));
    score -= 1.0f;
  }
  seeds.push_back({"llama2c/tokenizer8.tok", tok});
  return seeds;
}

}  // namespace wgrt::test
