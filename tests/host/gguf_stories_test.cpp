// GGUF reader on the real stories260K.gguf (written by llama.cpp's gguf writer); values from the model's
// README (dim 64, hidden 172, 5 layers, 8 heads, 4 KV heads, vocab 512, seq_len 512, tied classifier).
#include <gtest/gtest.h>

#include <wgrt/error.h>

#include "formats/gguf.h"
#include "support/paths.h"

namespace wgrt {
namespace {

const std::string kGguf = test::shared_path("models/stories260K/stories260K.gguf");

TEST(GgufStories, HeaderAndMetadata) {
  GgufFile f = GgufFile::open(kGguf);
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.alignment(), 32u);
  EXPECT_EQ(f.metadata().size(), 18u);
  EXPECT_EQ(f.get_string("general.architecture"), "llama");
  EXPECT_EQ(f.get_string("general.name"), "stories260K");
  EXPECT_EQ(f.get_u32("llama.context_length"), 512u);
  EXPECT_EQ(f.get_u32("llama.embedding_length"), 64u);
  EXPECT_EQ(f.get_u32("llama.feed_forward_length"), 172u);
  EXPECT_EQ(f.get_u32("llama.block_count"), 5u);
  EXPECT_EQ(f.get_u32("llama.attention.head_count"), 8u);
  EXPECT_EQ(f.get_u32("llama.attention.head_count_kv"), 4u);
  EXPECT_EQ(f.get_u32("llama.rope.dimension_count"), 8u);
  EXPECT_FLOAT_EQ(f.get_f32("llama.attention.layer_norm_rms_epsilon"), 1e-5f);
  EXPECT_EQ(f.get_string("tokenizer.ggml.model"), "llama");
  auto tokens = f.get_array_strings("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.size(), 512u);
  EXPECT_EQ(tokens[0], "<unk>");
  EXPECT_EQ(tokens[1], "\n<s>\n");
  EXPECT_EQ(tokens[2], "\n</s>\n");
  EXPECT_EQ(tokens[3], "<0x00>");
  EXPECT_EQ(f.get_array_f32("tokenizer.ggml.scores").size(), 512u);
  EXPECT_EQ(f.get_array_i32("tokenizer.ggml.token_type").size(), 512u);
  EXPECT_FALSE(f.opt_u32("llama.no_such_key").has_value());
  EXPECT_EQ(f.get_u32("tokenizer.ggml.bos_token_id"), 1u);
  EXPECT_EQ(f.get_u32("tokenizer.ggml.eos_token_id"), 2u);
  EXPECT_EQ(f.get_u32("tokenizer.ggml.unknown_token_id"), 0u);
}

TEST(GgufStories, TypeErrorsNameKeyAndTypes) {
  GgufFile f = GgufFile::open(kGguf);
  try {
    f.get_u32("general.architecture");
    FAIL() << "no throw";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'general.architecture' has type string, expected u32"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(f.get_string("missing.key"), FormatError);
  EXPECT_THROW(f.get_array_strings("llama.block_count"), FormatError);
}

TEST(GgufStories, TensorList) {
  GgufFile f = GgufFile::open(kGguf);
  ASSERT_EQ(f.tensors().size(), 47u);  // token_embd, output_norm, 5 layers x 9
  const GgufTensorInfo& emb = f.tensor("token_embd.weight");
  EXPECT_EQ(emb.dims, (std::vector<uint64_t>{64, 512}));
  EXPECT_EQ(emb.type, GgmlType::F32);
  EXPECT_EQ(f.tensor("blk.0.attn_q.weight").dims, (std::vector<uint64_t>{64, 64}));
  EXPECT_EQ(f.tensor("blk.4.attn_k.weight").dims, (std::vector<uint64_t>{64, 32}));
  EXPECT_EQ(f.tensor("blk.2.ffn_gate.weight").dims, (std::vector<uint64_t>{64, 172}));
  EXPECT_EQ(f.tensor("blk.2.ffn_down.weight").dims, (std::vector<uint64_t>{172, 64}));
  EXPECT_EQ(f.tensor("output_norm.weight").dims, (std::vector<uint64_t>{64}));
  EXPECT_EQ(f.find_tensor("output.weight"), nullptr);
  EXPECT_THROW(f.tensor("nope"), InvalidArgument);
  uint64_t total = 0;
  for (const auto& t : f.tensors()) {
    EXPECT_EQ(t.offset % 32, 0u) << t.name;
    total += t.n_elements;
  }
  EXPECT_EQ(total, 32768u + 5 * (64 + 4096 + 2048 + 2048 + 4096 + 64 + 3 * 11008) + 64);
  EXPECT_EQ(f.to_f32(emb).size(), 512u * 64u);
}

}  // namespace
}  // namespace wgrt
