// Llama2cTokenizer against the llama2.c facts for stories260K (tok512.bin) and a literal transcription of
// run.c's O(n^2) encode loop (tests/support/tok512.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include <wgrt/error.h>

#include "support/complexity.h"
#include "support/paths.h"
#include "support/tok512.h"
#include "text/llama2c_tokenizer.h"

namespace wgrt::text {
namespace {

const test::Tok512& tok512() {
  static const test::Tok512 t = test::read_llama2c_tokenizer(test::shared_path("models/stories260K/tok512.bin"));
  return t;
}
const Llama2cTokenizer& tok() {
  static const Llama2cTokenizer t(tok512().pieces, tok512().scores);
  return t;
}

TEST(Llama2cTokenizer, FileShape) {
  EXPECT_EQ(tok512().pieces.size(), 512u);
  EXPECT_EQ(tok512().max_token_length, 7);
  EXPECT_EQ(tok().vocab_size(), 512);
}

TEST(Llama2cTokenizer, OnceUponATimeMatchesLlama2c) {
  EXPECT_EQ(tok().encode("Once upon a time", true), (std::vector<int32_t>{1, 403, 407, 261, 378}));
  EXPECT_EQ(tok().encode("Once upon a time", false), (std::vector<int32_t>{403, 407, 261, 378}));
}

TEST(Llama2cTokenizer, DecodeStripsSpaceAfterBosOnly) {
  EXPECT_EQ(tok().decode_piece(1, 403), "Once");
  EXPECT_EQ(tok().decode_piece(403, 407), " upon");
  EXPECT_EQ(tok().decode_piece(-1, 403), " Once");
  const std::vector<int32_t> ids{1, 403, 407, 261, 378};
  EXPECT_EQ(tok().decode(ids), "Once upon a time");
  EXPECT_EQ(tok().decode_piece(403, 1), "");  // control tokens print nothing
  EXPECT_EQ(tok().decode_piece(403, 2), "");
}

TEST(Llama2cTokenizer, EmptyAndSpaces) {
  EXPECT_EQ(tok().encode("", true), (std::vector<int32_t>{1}));
  EXPECT_TRUE(tok().encode("", false).empty());
  for (std::string s : {" ", "  ", "     ", "\t \n"}) {
    EXPECT_EQ(tok().encode(s, true), test::reference_run_c_encode(tok512().pieces, tok512().scores, s, true)) << s;
    EXPECT_EQ(tok().decode(tok().encode(s, true)), s);
  }
}

TEST(Llama2cTokenizer, RepeatedCharactersTieBreakLeftmost) {
  // The same pair at several places has the same score: run.c merges the leftmost first.
  for (char c : std::string("a .!elo")) {
    for (int n = 1; n <= 9; ++n) {
      const std::string s(static_cast<std::size_t>(n), c);
      EXPECT_EQ(tok().encode(s, true), test::reference_run_c_encode(tok512().pieces, tok512().scores, s, true)) << s;
    }
  }
}

TEST(Llama2cTokenizer, ByteFallbackForCodePointsNotInVocab) {
  // U+4E2D '中' = E4 B8 AD is not a tok512 piece: byte tokens (byte + 3) after the dummy prefix " " (id 410).
  // (U+00E9 'é' is piece 485.)
  EXPECT_EQ(tok().encode("\xE4\xB8\xAD", false), (std::vector<int32_t>{410, 0xE4 + 3, 0xB8 + 3, 0xAD + 3}));
  EXPECT_EQ(tok().encode("\xC3\xA9", false), (std::vector<int32_t>{410, 485}));
  EXPECT_EQ(tok().token_bytes(0xE4 + 3), "\xE4");
  EXPECT_EQ(tok().decode(tok().encode("\xE4\xB8\xAD", true)), "\xE4\xB8\xAD");
  EXPECT_EQ(tok().token_type(0xE4 + 3), TokenType::Byte);
}

TEST(Llama2cTokenizer, MatchesRunCReferenceOnRandomText) {
  std::mt19937 rng(1234);
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ.,!?'\n\t0123456789";
  const std::vector<std::string> extras = {"\xC3\xA9", "\xE2\x80\x8A", "\xF0\x9F\x98\x80", "\x80", "\xFF", "\xE2\x82",
                                         "\xE4\xB8\xAD"};
  for (int trial = 0; trial < 300; ++trial) {
    std::string s;
    const int len = static_cast<int>(rng() % 40);
    for (int i = 0; i < len; ++i) {
      if (rng() % 10 == 0) s += extras[rng() % extras.size()];
      else s.push_back(alphabet[rng() % alphabet.size()]);
    }
    ASSERT_EQ(tok().encode(s, true), test::reference_run_c_encode(tok512().pieces, tok512().scores, s, true))
        << "text: '" << s << "'";
  }
}

TEST(Llama2cTokenizer, RoundTripsArbitraryBytes) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 100; ++trial) {
    std::string s;
    for (int i = 0, n = static_cast<int>(rng() % 30) + 1; i < n; ++i) s.push_back(static_cast<char>(rng() % 256));
    // Without BOS the dummy-prefix space is kept in the decoded text.
    EXPECT_EQ(tok().decode(tok().encode(s, false)), " " + s);
  }
}

TEST(Llama2cTokenizer, LongInputScalesAndIsCorrect) {
  std::string s;
  const std::string sentence = "Once upon a time, there was a little girl named Lily. ";
  while (s.size() < 10000) s += sentence;
  const auto ids = tok().encode(s, true);
  EXPECT_EQ(tok().decode(ids), s);
  // Sub-quadratic, checked as complexity (support/complexity.h); run.c's O(n^2) loop grows ~256x.
  std::string big = s;
  while (big.size() < 256000) big += sentence;
  EXPECT_LT(test::growth_ratio_16x([&](size_t n) { (void)tok().encode(big.substr(0, n), true); }, 16000),
            test::kSubQuadraticMaxRatio16x);
  // The first sentence alone gives the same tokens, but for its last one (the trailing space may merge onward).
  auto one = tok().encode(sentence, false);
  one.pop_back();
  EXPECT_EQ(std::vector<int32_t>(ids.begin() + 1, ids.begin() + 1 + static_cast<std::ptrdiff_t>(one.size())), one);
  const std::string head = s.substr(0, 400);
  EXPECT_EQ(tok().encode(head, true), test::reference_run_c_encode(tok512().pieces, tok512().scores, head, true));
}

TEST(Llama2cTokenizer, RejectsBadIdsAndVocabularies) {
  EXPECT_THROW(tok().piece(512), InvalidArgument);
  EXPECT_THROW(tok().piece(-1), InvalidArgument);
  EXPECT_THROW(tok().decode_piece(1, 600), InvalidArgument);
  EXPECT_THROW(tok().decode_piece(-7, 5), InvalidArgument);
  EXPECT_THROW(Llama2cTokenizer({"a"}, {0.0f}), InvalidArgument);
  auto pieces = tok512().pieces;
  auto scores = tok512().scores;
  scores.pop_back();
  EXPECT_THROW(Llama2cTokenizer(pieces, scores), InvalidArgument);
  pieces[10] = "x";
  EXPECT_THROW(Llama2cTokenizer(pieces, tok512().scores), InvalidArgument);
}

}  // namespace
}  // namespace wgrt::text
