// Seeds of the GGUF tokenizer-metadata fuzzer (fuzz/fuzz_gguf_tokenizer.cpp, corpus tests/corpus/gguf_tokenizer):
// small GGUF files holding only tokenizer.ggml.* keys, a "llama" (SentencePiece-style, byte fallback) and
// two "gpt2" (byte-level BPE) vocabularies, so the fuzzer starts inside the tokenizer path instead of
// spending its time rediscovering the key names. WGRT_REGEN_CORPUS=1 rewrites them; otherwise the committed
// copies must equal what this file builds and each must build a tokenizer that encodes text. (In tests/models:
// the tokenizer loader lives in wgrt_models.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "models/tokenizer_loader.h"
#include "support/paths.h"
#include "support/synth_model.h"
#include "text/bpe_tokenizer.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> spm_seed() {
  GgufWriter w;
  w.set("tokenizer.ggml.model", GgufValue::of_string("llama"));
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<float> scores = {0, 0, 0};
  std::vector<int32_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    tokens.push_back(hex), scores.push_back(0), types.push_back(6);
  }
  const char* words[] = {"\xE2\x96\x81", "\xE2\x96\x81t", "he", "\xE2\x96\x81the", "\xE2\x96\x81" "a", "on", "ce",
                         "\xE2\x96\x81on", "\xE2\x96\x81once", "up", "\xE2\x96\x81up", "\xE2\x96\x81upon"};
  float score = -1;
  for (const char* t : words) tokens.push_back(t), scores.push_back(score--), types.push_back(1);
  w.set("tokenizer.ggml.tokens", GgufValue::array_of_strings(tokens));
  w.set("tokenizer.ggml.scores", GgufValue::array_of<float>(GgufValueType::F32, scores));
  w.set("tokenizer.ggml.token_type", GgufValue::array_of<int32_t>(GgufValueType::I32, types));
  w.set("tokenizer.ggml.bos_token_id", GgufValue::of_u32(1));
  w.set("tokenizer.ggml.eos_token_id", GgufValue::of_u32(2));
  w.set("tokenizer.ggml.unknown_token_id", GgufValue::of_u32(0));
  w.set("tokenizer.ggml.add_bos_token", GgufValue::of_bool(true));
  return w.to_bytes();
}

std::vector<uint8_t> bpe_seed(const std::string& pre) {
  GgufWriter w;
  w.set("tokenizer.ggml.model", GgufValue::of_string("gpt2"));
  w.set("tokenizer.ggml.pre", GgufValue::of_string(pre));
  std::vector<std::string> tokens, merges;
  for (int b = 0; b < 256; ++b) tokens.push_back(text::BpeTokenizer::byte_to_unicode(uint8_t(b)));
  for (const auto& [l, r] : std::vector<std::pair<std::string, std::string>>{
           {"\xC4\xA0", "t"}, {"h", "e"}, {"\xC4\xA0t", "he"}, {"1", "2"}, {"12", "3"}, {"a", "a"}}) {
    merges.push_back(l + " " + r);
    tokens.push_back(l + r);
  }
  tokens.push_back("<|endoftext|>");
  std::vector<int32_t> types(tokens.size(), 1);
  types.back() = 3;
  w.set("tokenizer.ggml.tokens", GgufValue::array_of_strings(tokens));
  w.set("tokenizer.ggml.merges", GgufValue::array_of_strings(merges));
  w.set("tokenizer.ggml.token_type", GgufValue::array_of<int32_t>(GgufValueType::I32, types));
  w.set("tokenizer.ggml.eos_token_id", GgufValue::of_u32(uint32_t(tokens.size() - 1)));
  w.set("tokenizer.ggml.add_bos_token", GgufValue::of_bool(false));
  return w.to_bytes();
}

TEST(FuzzCorpusText, GgufTokenizerSeedsHoldWorkingVocabularies) {
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds = {
      {"spm.gguf", spm_seed()}, {"bpe_llama3.gguf", bpe_seed("llama3")}, {"bpe_qwen2.gguf", bpe_seed("qwen2")}};
  const fs::path dir = test::source_path("tests/corpus/gguf_tokenizer");
  const char* regen = std::getenv("WGRT_REGEN_CORPUS");
  for (const auto& [name, bytes] : seeds) {
    SCOPED_TRACE(name);
    if (regen && std::string(regen) == "1") test::write_file((dir / name).string(), bytes);
    ASSERT_TRUE(fs::exists(dir / name)) << "run with WGRT_REGEN_CORPUS=1";
    EXPECT_EQ(test::read_file((dir / name).string()), bytes);
    auto tok = models::tokenizer_from_gguf(GgufFile::from_bytes(bytes));
    const std::string text = "once upon the 123 aa\xF0\x9F\x98\x80";
    const auto ids = tok->encode(text, false);
    EXPECT_FALSE(ids.empty());
    const std::string back = tok->decode(ids);  // SPM adds a dummy-prefix space, kept when no BOS precedes
    EXPECT_TRUE(back == text || back == " " + text) << back;
  }
}

// Issue 16: a gpt2-type vocabulary without merges used to be accepted (every word stayed bytes).
TEST(FuzzCorpusText, Gpt2VocabularyWithoutMergesIsAnError) {
  GgufWriter w;
  w.set("general.architecture", GgufValue::of_string("llama"));
  w.set("tokenizer.ggml.model", GgufValue::of_string("gpt2"));
  std::vector<std::string> tokens;
  for (int i = 0; i < 256; ++i) tokens.push_back(std::string(1, char('A' + i % 26)) + std::to_string(i));
  w.set("tokenizer.ggml.tokens", GgufValue::array_of_strings(tokens));
  const auto bytes = w.to_bytes();
  try {
    (void)models::tokenizer_from_gguf(GgufFile::from_bytes(bytes));
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& e) {  // BpeTokenizer's check (one check for every source of a BPE vocabulary)
    EXPECT_NE(std::string(e.what()).find("the vocabulary has no merges (tokenizer.ggml.merges)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace wgrt
