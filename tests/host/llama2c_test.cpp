// llama2.c checkpoint and tokenizer-file readers: the real stories260K.bin / tok512.bin, synthetic files
// (own classifier), and corrupt input (every truncation, bad header fields, wrong sizes).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <optional>
#include <cstring>
#include <wgrt/error.h>

#include "formats/llama2c.h"
#include "formats/llama2c_tokenizer_file.h"
#include "formats/model_weights.h"
#include "support/paths.h"
#include "support/synth_model.h"

namespace wgrt {
namespace {

TEST(Llama2c, StoriesHeader) {
  Llama2cFile f = Llama2cFile::open(test::shared_path("models/stories260K/stories260K.bin"));
  const Llama2cHeader& h = f.header();
  EXPECT_EQ(h.dim, 64);
  EXPECT_EQ(h.hidden_dim, 172);
  EXPECT_EQ(h.n_layers, 5);
  EXPECT_EQ(h.n_heads, 8);
  EXPECT_EQ(h.n_kv_heads, 4);
  EXPECT_EQ(h.vocab_size, 512);
  EXPECT_EQ(h.seq_len, 512);
  EXPECT_TRUE(h.shared_classifier);
  EXPECT_EQ(h.head_size(), 8);
  EXPECT_EQ(h.kv_dim(), 32);
  EXPECT_EQ(f.wk(4).size(), 32u * 64u * 4u);
  EXPECT_EQ(f.w2(0).size(), 64u * 172u * 4u);
  EXPECT_EQ(f.wcls().data(), f.token_embedding().data());
  // The first weight is the first float after the 28-byte header (bytes 50 e9 96 be).
  EXPECT_EQ(Llama2cFile::to_f32(f.token_embedding())[0], std::bit_cast<float>(0xBE96E950u));
  EXPECT_THROW(f.wq(5), InvalidArgument);
  EXPECT_THROW(f.wq(-1), InvalidArgument);
}

TEST(Llama2c, StoriesTokenizerFile) {
  const std::string path = test::shared_path("models/stories260K/tok512.bin");
  Llama2cTokenizerFile t = Llama2cTokenizerFile::read(path, 512);
  ASSERT_EQ(t.pieces.size(), 512u);
  ASSERT_EQ(t.scores.size(), 512u);
  EXPECT_EQ(t.max_token_length, 7);
  EXPECT_EQ(t.pieces[0], "<unk>");
  EXPECT_EQ(t.pieces[1], "\n<s>\n");
  EXPECT_EQ(t.pieces[2], "\n</s>\n");
  EXPECT_EQ(t.pieces[3 + 0x41], "<0x41>");
  EXPECT_EQ(t.pieces[403], " Once");  // README: "Once upon a time" -> [1, 403, 407, 261, 378]
  EXPECT_EQ(t.pieces[407], " upon");
  EXPECT_EQ(t.pieces[261], " a");
  EXPECT_EQ(t.pieces[378], " time");
  EXPECT_EQ(t.scores[0], 0.0f);
  Llama2cTokenizerFile all = Llama2cTokenizerFile::read(path);  // until EOF
  EXPECT_EQ(all.pieces, t.pieces);
  EXPECT_EQ(all.scores, t.scores);
  EXPECT_THROW(Llama2cTokenizerFile::read(path, 511), FormatError);  // trailing bytes
  EXPECT_THROW(Llama2cTokenizerFile::read(path, 513), FormatError);  // truncated
}

TEST(Llama2c, UntiedClassifierComesLast) {
  auto bytes = test::synth_llama2c(8, 12, 2, 2, 1, -10, 4, 7);
  const size_t wcls_at = bytes.size() - 10 * 8 * 4;
  Llama2cFile f = Llama2cFile::from_bytes(bytes);
  EXPECT_FALSE(f.header().shared_classifier);
  EXPECT_EQ(f.header().vocab_size, 10);
  EXPECT_EQ(f.wcls().data() - f.token_embedding().data(), std::ptrdiff_t(wcls_at - 28));
  WeightSource ws = load_llama2c(Llama2cFile::from_bytes(bytes));
  EXPECT_FALSE(ws.config().tied_embeddings);
  ASSERT_TRUE(ws.has("output"));
  EXPECT_EQ(ws.get("output").shape, (std::vector<int64_t>{10, 8}));
  EXPECT_EQ(std::memcmp(ws.get("output").data.data(), bytes.data() + wcls_at, 320), 0);
  EXPECT_EQ(ws.get("blk.1.attn_k").shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(ws.get("blk.1.ffn_down").shape, (std::vector<int64_t>{8, 12}));
  // rms_final sits right before the freq_cis tables (seq_len * head_size floats) and wcls.
  EXPECT_EQ(f.rms_final().data() + 8 * 4 + 4 * 4 * 4, f.wcls().data());
}

TEST(Llama2c, EveryTruncationAndExtensionFails) {
  auto full = test::synth_llama2c(8, 12, 2, 2, 1, 10, 4);
  ASSERT_NO_THROW(Llama2cFile::from_bytes(full));
  for (size_t n = 0; n < full.size(); ++n)
    EXPECT_THROW(Llama2cFile::from_bytes(std::vector<uint8_t>(full.begin(), full.begin() + n)), FormatError) << n;
  full.push_back(0);
  EXPECT_THROW(Llama2cFile::from_bytes(full), FormatError);
}

TEST(Llama2c, BadHeaderFields) {
  auto base = test::synth_llama2c(8, 12, 2, 2, 1, 10, 4);
  auto with = [&](int field, int32_t v) {
    auto b = base;
    std::memcpy(b.data() + 4 * field, &v, 4);
    return b;
  };
  auto msg = [](std::vector<uint8_t> b) -> std::string {
    try {
      Llama2cFile::from_bytes(std::move(b));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  for (int field = 0; field < 7; ++field) {
    EXPECT_NE(msg(with(field, 0)), "") << field;
    EXPECT_NE(msg(with(field, field == 5 ? INT32_MIN : -3)), "") << field;
    EXPECT_NE(msg(with(field, 0x7FFFFFFF)), "") << field;
  }
  EXPECT_NE(msg(with(3, 3)).find("n_heads 3 does not divide dim 8"), std::string::npos);
  EXPECT_NE(msg(with(4, 3)).find("n_kv_heads 3 does not divide n_heads 2"), std::string::npos);
  EXPECT_NE(msg(with(3, 8)).find("is odd"), std::string::npos);
  EXPECT_NE(msg(with(5, -10)).find("own classifier"), std::string::npos);  // size no longer matches
  EXPECT_NE(msg(with(0, 64)).find("the header implies"), std::string::npos);
  auto ak = base;
  std::memcpy(ak.data(), "ak42", 4);
  EXPECT_THROW(Llama2cFile::from_bytes(ak), Unsupported);
  EXPECT_THROW(Llama2cFile::open("/nonexistent/x.bin"), FormatError);
}

TEST(Llama2c, BadTokenizerFiles) {
  auto mk = [](int32_t maxlen, std::vector<std::pair<float, std::string>> toks,
                std::optional<int32_t> forced_len = std::nullopt) {
    std::vector<uint8_t> b(4);
    std::memcpy(b.data(), &maxlen, 4);
    for (auto& [score, s] : toks) {
      int32_t len = forced_len.value_or(int32_t(s.size()));
      b.resize(b.size() + 8);
      std::memcpy(b.data() + b.size() - 8, &score, 4);
      std::memcpy(b.data() + b.size() - 4, &len, 4);
      b.insert(b.end(), s.begin(), s.end());
    }
    return b;
  };
  auto good = mk(3, {{0.f, "a"}, {-1.f, "abc"}, {2.f, ""}});
  auto t = Llama2cTokenizerFile::parse(good, 3);
  EXPECT_EQ(t.pieces, (std::vector<std::string>{"a", "abc", ""}));
  EXPECT_EQ(t.scores, (std::vector<float>{0.f, -1.f, 2.f}));
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(Llama2cTokenizerFile::parse(std::span(good).first(n), 3), FormatError) << n;
  EXPECT_THROW(Llama2cTokenizerFile::parse(mk(2, {{0.f, "abc"}})), FormatError);      // len > max
  EXPECT_THROW(Llama2cTokenizerFile::parse(mk(0, {{0.f, ""}})), FormatError);         // max < 1
  EXPECT_THROW(Llama2cTokenizerFile::parse(mk(3, {{NAN, "a"}})), FormatError);        // NaN score
  EXPECT_THROW(Llama2cTokenizerFile::parse(mk(3, {{0.f, "a"}}, -5)), FormatError);    // negative len
  EXPECT_THROW(Llama2cTokenizerFile::parse(mk(3, {{0.f, "a"}}, 1 << 30)), FormatError);
  EXPECT_THROW(Llama2cTokenizerFile::parse(mk(3, {})), FormatError);                  // no tokens
  EXPECT_THROW(Llama2cTokenizerFile::parse(good, -1), InvalidArgument);
  EXPECT_THROW(Llama2cTokenizerFile::read("/nonexistent/tok.bin"), FormatError);
}

}  // namespace
}  // namespace wgrt
