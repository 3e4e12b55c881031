// stories260K.gguf (llama.cpp converter) vs stories260K.bin (llama2.c): every tensor of both files, through
// both loaders, must be bit-identical under the canonical names (no q/k row permutation: llama.cpp's
// converter keeps llama2.c's interleaved-RoPE row order, and llama.cpp uses NORM rope for arch llama).
#include <gtest/gtest.h>

#include <cstring>

#include "formats/gguf.h"
#include "formats/model_weights.h"
#include "support/paths.h"

namespace wgrt {
namespace {

TEST(GgufVsLlama2c, ConfigsAgree) {
  WeightSource g = load_gguf_llama(test::shared_path("models/stories260K/stories260K.gguf"));
  WeightSource b = load_llama2c(test::shared_path("models/stories260K/stories260K.bin"));
  const LlamaConfig &a = g.config(), &c = b.config();
  EXPECT_EQ(a.arch, "llama");
  EXPECT_EQ(a.dim, 64);
  EXPECT_EQ(a.hidden_dim, 172);
  EXPECT_EQ(a.n_layers, 5);
  EXPECT_EQ(a.n_heads, 8);
  EXPECT_EQ(a.n_kv_heads, 4);
  EXPECT_EQ(a.head_dim, 8);
  EXPECT_EQ(a.vocab_size, 512);
  EXPECT_EQ(a.context_length, 512);
  EXPECT_FLOAT_EQ(a.rope_theta, 10000.0f);
  EXPECT_TRUE(a.rope_interleaved);
  EXPECT_FLOAT_EQ(a.rms_eps, 1e-5f);
  EXPECT_TRUE(a.tied_embeddings);
  EXPECT_FALSE(a.has_qkv_bias);
  EXPECT_FALSE(a.has_qk_norm);
  EXPECT_EQ(c.arch, a.arch);
  EXPECT_EQ(c.dim, a.dim);
  EXPECT_EQ(c.hidden_dim, a.hidden_dim);
  EXPECT_EQ(c.n_layers, a.n_layers);
  EXPECT_EQ(c.n_heads, a.n_heads);
  EXPECT_EQ(c.n_kv_heads, a.n_kv_heads);
  EXPECT_EQ(c.head_dim, a.head_dim);
  EXPECT_EQ(c.vocab_size, a.vocab_size);
  EXPECT_EQ(c.context_length, a.context_length);
  EXPECT_EQ(c.rope_interleaved, a.rope_interleaved);
  EXPECT_EQ(c.tied_embeddings, a.tied_embeddings);
  EXPECT_NE(g.gguf(), nullptr);
  EXPECT_NE(b.llama2c(), nullptr);
}

TEST(GgufVsLlama2c, EveryTensorBitIdentical) {
  WeightSource g = load_gguf_llama(test::shared_path("models/stories260K/stories260K.gguf"));
  WeightSource b = load_llama2c(test::shared_path("models/stories260K/stories260K.bin"));
  ASSERT_EQ(g.names(), b.names());
  ASSERT_EQ(g.names().size(), 47u);
  for (const std::string& n : g.names()) {
    const WeightTensor &x = g.get(n), &y = b.get(n);
    EXPECT_EQ(x.shape, y.shape) << n;
    EXPECT_EQ(x.type, GgmlType::F32) << n;
    EXPECT_EQ(y.type, GgmlType::F32) << n;
    ASSERT_EQ(x.data.size(), y.data.size()) << n;
    EXPECT_EQ(std::memcmp(x.data.data(), y.data.data(), x.data.size()), 0) << n << " differs";
  }
}

}  // namespace
}  // namespace wgrt
