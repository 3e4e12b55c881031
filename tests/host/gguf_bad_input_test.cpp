// GGUF reader on corrupt input: every failure is a wgrt::Error with a message naming the problem; no crash,
// no huge allocation. Files are written by GgufWriter and then patched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <wgrt/error.h>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "formats/model_weights.h"
#include "support/synth_model.h"

namespace wgrt {
namespace {

std::vector<uint8_t> small_file() {
  GgufWriter w;
  w.set("general.architecture", GgufValue::of_string("llama"));
  std::vector<uint32_t> arr = {1, 2, 3};
  w.set("arr_key", GgufValue::array_of<uint32_t>(GgufValueType::U32, arr));
  w.set("str_key", GgufValue::of_string("hello"));
  w.add_tensor_f32("tensor_aa", {4, 2}, test::synth_values(8, 1));
  w.add_tensor_f32("tensor_bb", {32}, test::synth_values(32, 2), GgmlType::Q8_0);
  return w.to_bytes();
}

size_t find(const std::vector<uint8_t>& b, const std::string& s) {
  auto it = std::search(b.begin(), b.end(), s.begin(), s.end());
  if (it == b.end()) throw std::runtime_error("marker not found: " + s);
  return size_t(it - b.begin());
}
template <class T>
void poke(std::vector<uint8_t>& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof(T));
}

// Parses and returns the error message ("" if it parsed).
template <class E = Error>
std::string error_of(std::vector<uint8_t> b) {
  try {
    GgufFile::from_bytes(std::move(b), "bad.gguf");
  } catch (const E& e) {
    return e.what();
  }
  return "";
}
#define EXPECT_ERROR_HAS(bytes, text) EXPECT_NE(error_of(bytes).find(text), std::string::npos) << error_of(bytes)

TEST(GgufBadInput, EveryTruncationFails) {
  auto full = small_file();
  ASSERT_NO_THROW(GgufFile::from_bytes(full));
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + n);
    EXPECT_NE(error_of<FormatError>(cut), "") << "prefix of " << n << " bytes parsed";
  }
}

TEST(GgufBadInput, MagicAndVersion) {
  auto b = small_file();
  b[0] = 'X';
  EXPECT_ERROR_HAS(b, "not a GGUF file");
  for (uint32_t v : {0u, 1u, 4u, 3u << 24}) {
    b = small_file();
    poke<uint32_t>(b, 4, v);
    EXPECT_NE(error_of<Unsupported>(b).find("GGUF version " + std::to_string(v) + " is not supported"), std::string::npos);
  }
}

TEST(GgufBadInput, AbsurdCountsAndLengths) {
  auto b = small_file();
  poke<uint64_t>(b, 8, ~0ull);  // tensor count
  EXPECT_ERROR_HAS(b, "tensor count");
  b = small_file();
  poke<uint64_t>(b, 16, 1ull << 60);  // kv count
  EXPECT_ERROR_HAS(b, "kv count");
  const size_t arr = find(small_file(), "arr_key") + 7 + 4 + 4;  // key, value type, element type -> count
  for (uint64_t c : {~0ull, 1ull << 62, 4ull, 1000000ull}) {
    b = small_file();
    poke<uint64_t>(b, arr, c);
    EXPECT_NE(error_of<FormatError>(b), "") << c;
  }
  const size_t str = find(small_file(), "str_key") + 7 + 4;  // string value length
  for (uint64_t c : {~0ull, 1ull << 40, 6ull}) {
    b = small_file();
    poke<uint64_t>(b, str, c);
    EXPECT_NE(error_of<FormatError>(b), "") << c;
  }
  b = small_file();
  poke<uint64_t>(b, find(b, "str_key") - 8, ~0ull);  // key length
  EXPECT_ERROR_HAS(b, "truncated while reading metadata key");
  b = small_file();
  poke<uint32_t>(b, find(b, "str_key") + 7, 13u);  // unknown value type
  EXPECT_ERROR_HAS(b, "unknown value type 13");
}

TEST(GgufBadInput, TensorInfoErrors) {
  const size_t ta = find(small_file(), "tensor_aa") + 9;  // -> n_dims
  auto b = small_file();
  poke<uint32_t>(b, ta, 5u);
  EXPECT_ERROR_HAS(b, "has 5 dims");
  b = small_file();
  poke<uint64_t>(b, ta + 4, 1ull << 40), poke<uint64_t>(b, ta + 12, 1ull << 40);
  EXPECT_ERROR_HAS(b, "element count overflows");
  b = small_file();
  poke<uint64_t>(b, ta + 4, 0);
  EXPECT_ERROR_HAS(b, "zero dimension");
  b = small_file();
  poke<uint32_t>(b, ta + 20, 200u);
  EXPECT_ERROR_HAS(b, "unknown ggml type id 200");
  b = small_file();
  poke<uint64_t>(b, ta + 24, 1ull << 20);  // offset past EOF
  EXPECT_ERROR_HAS(b, "reaches past the end of the file");
  b = small_file();
  poke<uint64_t>(b, ta + 24, ~0ull - 31);  // offset + size overflows
  EXPECT_ERROR_HAS(b, "reaches past the end of the file");
  b = small_file();
  poke<uint64_t>(b, ta + 24, 4);
  EXPECT_ERROR_HAS(b, "not a multiple of the alignment");
  b = small_file();
  poke<uint64_t>(b, ta + 24, 32);  // lands on tensor_bb
  EXPECT_ERROR_HAS(b, "overlaps");
  b = small_file();
  b[find(b, "tensor_bb") + 8] = 'a', b[find(b, "tensor_ba") + 7] = 'a';
  EXPECT_ERROR_HAS(b, "duplicate tensor name 'tensor_aa'");
  b = small_file();
  poke<uint64_t>(b, find(b, "tensor_bb") + 13, 33);  // Q8_0 ne0 not a multiple of 32
  EXPECT_ERROR_HAS(b, "block size");
  b = small_file();
  b.pop_back();
  EXPECT_ERROR_HAS(b, "tensor 'tensor_bb' data");
}

TEST(GgufBadInput, MetadataErrors) {
  auto b = small_file();
  std::memcpy(b.data() + find(b, "str_key"), "arr", 3);  // second "arr_key"
  EXPECT_ERROR_HAS(b, "duplicate metadata key 'arr_key'");
  GgufWriter w;
  w.set("general.alignment", GgufValue::of_u32(48));
  EXPECT_ERROR_HAS(w.to_bytes(), "not a power of two");
  w.set("general.alignment", GgufValue::of_string("32"));
  EXPECT_ERROR_HAS(w.to_bytes(), "general.alignment has type string");
  w = GgufWriter();
  w.set("b", GgufValue::of_bool(true));
  b = w.to_bytes();
  b.back() = 2;
  EXPECT_ERROR_HAS(b, "bool value is 2");
  GgufValue deep = GgufValue::array_of_strings({"x"});
  for (int i = 0; i < 9; ++i) deep = GgufValue::array_of_arrays({deep});
  w = GgufWriter();
  w.set("deep", deep);
  EXPECT_ERROR_HAS(w.to_bytes(), "nested deeper than 8");
}

TEST(GgufBadInput, UnsupportedTensorTypeTQ1_0) {
  GgufWriter w;
  w.add_tensor_raw("blk.0.ffn_up.weight", {256, 2}, 34, std::vector<uint8_t>(2 * 54, 0x11));
  GgufFile g = GgufFile::from_bytes(w.to_bytes());
  ASSERT_EQ(g.tensors().size(), 1u);
  EXPECT_EQ(g.tensors()[0].n_bytes, 108u);
  try {
    g.to_f32(g.tensors()[0]);
    FAIL() << "no throw";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("tensor blk.0.ffn_up.weight has type TQ1_0, which wgrt cannot load"),
              std::string::npos) << e.what();
  }
}

TEST(GgufBadInput, ModelLevelErrors) {
  EXPECT_THROW(GgufFile::open("/nonexistent/model.gguf"), FormatError);
  try {
    GgufFile::open("/nonexistent/model.gguf");
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.gguf"), std::string::npos);
  }
  test::SynthSpec s;
  s.arch = "gpt2";
  try {
    load_gguf_llama(GgufFile::from_bytes(test::synth_llama_gguf(s)));
    FAIL();
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("architecture 'gpt2' is not supported"), std::string::npos) << e.what();
  }
  s.arch = "llama";
  auto b = test::synth_llama_gguf(s);
  b[find(b, "blk.1.ffn_up.weight") + 6] = 'X';  // rename -> missing tensor
  EXPECT_THROW(load_gguf_llama(GgufFile::from_bytes(b)), FormatError);
  b = test::synth_llama_gguf(s);
  poke<uint32_t>(b, find(b, "llama.feed_forward_length") + 25 + 4, 65u);  // wrong hidden -> shape mismatch
  try {
    load_gguf_llama(GgufFile::from_bytes(b));
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("has shape [64,32], expected [65,32]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wgrt
