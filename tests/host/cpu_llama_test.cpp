// CpuLlama (tests/support) against the known facts of stories260K (README of the model, from llama2.c run.c):
// first-step top token 403 with softmax probability ~0.784, and the greedy text from BOS.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <wgrt/error.h>

#include "formats/llama2c_tokenizer_file.h"
#include "formats/model_weights.h"
#include "support/cpu_llama.h"
#include "support/paths.h"

namespace wgrt {
namespace {

const std::string kBin = test::shared_path("models/stories260K/stories260K.bin");
const std::string kGguf = test::shared_path("models/stories260K/stories260K.gguf");
const std::string kTok = test::shared_path("models/stories260K/tok512.bin");

int argmax(const std::vector<float>& v) { return int(std::max_element(v.begin(), v.end()) - v.begin()); }

// run.c decode(): strip the leading space of a piece that follows BOS; "<0xHH>" pieces are raw bytes.
std::string decode_piece(const Llama2cTokenizerFile& tok, int prev, int token) {
  std::string p = tok.pieces.at(token);
  if (prev == 1 && !p.empty() && p[0] == ' ') p.erase(0, 1);
  unsigned byte = 0;
  if (p.size() == 6 && std::sscanf(p.c_str(), "<0x%02X>", &byte) == 1) return std::string(1, char(byte));
  return p;
}

TEST(CpuLlama, FirstStepTopToken403) {
  WeightSource w = load_llama2c(kBin);
  test::CpuLlama m(w.config(), w);
  std::vector<float> logits = m.forward(1, 0);
  ASSERT_EQ(logits.size(), 512u);
  EXPECT_EQ(argmax(logits), 403);
  double mx = logits[403], sum = 0.0;
  for (float l : logits) sum += std::exp(l - mx);
  EXPECT_NEAR(1.0 / sum, 0.784, 0.001);  // README: "about 0.784"; we get 0.78369
}

TEST(CpuLlama, GreedyTextFromBosMatchesLlama2c) {
  WeightSource w = load_llama2c(kBin);
  Llama2cTokenizerFile tok = Llama2cTokenizerFile::read(kTok, 512);
  test::CpuLlama m(w.config(), w);
  const std::string expected =
      "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she "
      "saw a big, red ball. She wanted to play with it, but it was too high";
  std::string text;
  int token = 1;
  for (int pos = 0; pos < 200 && text.size() < expected.size(); ++pos) {
    int next = argmax(m.forward(token, pos));
    if (pos == 0) EXPECT_EQ(next, 403);
    text += decode_piece(tok, token, next);
    token = next;
  }
  EXPECT_EQ(text.substr(0, expected.size()), expected);
}

TEST(CpuLlama, GgufAndBinGiveIdenticalLogits) {
  WeightSource a = load_llama2c(kBin), b = load_gguf_llama(kGguf);
  test::CpuLlama ma(a.config(), a), mb(b.config(), b);
  const int tokens[] = {1, 403, 407, 261, 378};  // "Once upon a time" with BOS (README)
  for (int pos = 0; pos < 5; ++pos) EXPECT_EQ(ma.forward(tokens[pos], pos), mb.forward(tokens[pos], pos)) << pos;
}

TEST(CpuLlama, RejectsOutOfOrderPositionsAndBadTokens) {
  WeightSource w = load_llama2c(kBin);
  test::CpuLlama m(w.config(), w);
  EXPECT_THROW(m.forward(1, 1), InvalidArgument);
  EXPECT_THROW(m.forward(512, 0), InvalidArgument);
  EXPECT_THROW(m.forward(-1, 0), InvalidArgument);
  EXPECT_NO_THROW(m.forward(1, 0));
}

}  // namespace
}  // namespace wgrt
