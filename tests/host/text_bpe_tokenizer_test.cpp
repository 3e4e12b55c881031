// BpeTokenizer on a hand-built byte-level vocabulary whose results are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <random>

#include <wgrt/error.h>

#include "support/complexity.h"
#include "text/bpe_tokenizer.h"
#include "text/unicode_props.h"

namespace wgrt::text {
namespace {

// ids 0..255: the byte characters (id == byte value); then the merges below produce ids 256.. in order.
TokenizerSpec hand_spec(const std::string& pre = "gpt2") {
  TokenizerSpec s;
  s.model = "gpt2";
  s.pre = pre;
  for (int b = 0; b < 256; ++b) s.tokens.push_back(BpeTokenizer::byte_to_unicode(static_cast<unsigned char>(b)));
  const std::vector<std::pair<std::string, std::string>> merges = {
      {"Ġ", "t"},    // 0 -> 256 "Ġt"
      {"h", "e"},    // 1 -> 257 "he"
      {"Ġt", "he"},  // 2 -> 258 "Ġthe"
      {"l", "l"},    // 3 -> 259 "ll"
      {"he", "ll"},  // 4 -> 260 "hell"
      {"hell", "o"}, // 5 -> 261 "hello"
      {"Ġ", "w"},    // 6 -> 262 "Ġw"
      {"o", "r"},    // 7 -> 263 "or"
      {"Ġw", "or"},  // 8 -> 264 "Ġwor"
      {"l", "d"},    // 9 -> 265 "ld"
      {"Ġwor", "ld"},// 10 -> 266 "Ġworld"
      {"t", "h"},    // 11 -> 267 "th"  (ranked below "h e": "the" must become t + he)
      {"a", "a"},    // 12 -> 268 "aa"
      {"aa", "aa"},  // 13 -> 269 "aaaa"
  };
  for (const auto& [l, r] : merges) {
    s.merges.push_back(l + " " + r);
    s.tokens.push_back(l + r);
  }
  s.tokens.push_back("<|begin_of_text|>");  // 270 control
  s.tokens.push_back("<|end_of_text|>");    // 271 control
  s.tokens.push_back("<|user|>");           // 272 user-defined
  s.tokens.push_back("xyz");                // 273 normal, reachable by no merge (ignore_merges test)
  s.token_types.assign(s.tokens.size(), 1);
  s.token_types[270] = 3;
  s.token_types[271] = 3;
  s.token_types[272] = 4;
  s.bos_id = 270;
  s.eos_id = 271;
  s.add_bos = true;
  return s;
}

TEST(BpeTokenizer, ByteUnicodeTable) {
  EXPECT_EQ(BpeTokenizer::byte_to_unicode(' '), "\xC4\xA0");  // U+0120 'Ġ'
  EXPECT_EQ(BpeTokenizer::byte_to_unicode('\n'), "\xC4\x8A");  // U+010A 'Ċ'
  EXPECT_EQ(BpeTokenizer::byte_to_unicode('A'), "A");
  EXPECT_EQ(BpeTokenizer::byte_to_unicode(0xAD), "\xC5\x83");  // the 68th remapped byte: U+0143
  EXPECT_EQ(BpeTokenizer::byte_to_unicode(0xE9), "\xC3\xA9");  // kept: U+00E9
  for (int b = 0; b < 256; ++b) {
    const std::string& s = BpeTokenizer::byte_to_unicode(static_cast<unsigned char>(b));
    uint32_t cp = s.size() == 1 ? static_cast<unsigned char>(s[0])
                                : ((static_cast<unsigned char>(s[0]) & 0x1F) << 6) | (static_cast<unsigned char>(s[1]) & 0x3F);
    EXPECT_EQ(BpeTokenizer::unicode_to_byte(cp), b);
  }
  EXPECT_EQ(BpeTokenizer::unicode_to_byte(0x20), -1);
  EXPECT_EQ(BpeTokenizer::unicode_to_byte(0x144), -1);
}

TEST(BpeTokenizer, HandComputedMerges) {
  const BpeTokenizer t(hand_spec());
  // "hello" -> he(1), ll(3), hell(4), hello(5); " world" -> Ġw(6), or(7), Ġwor(8), ld(9), Ġworld(10).
  EXPECT_EQ(t.encode("hello world", false), (std::vector<int32_t>{261, 266}));
  // " the": Ġt (rank 0) before he (1), then Ġthe (2).
  EXPECT_EQ(t.encode(" the", false), (std::vector<int32_t>{258}));
  // "the": he (rank 1) beats th (rank 11) although th is further left: t + he.
  EXPECT_EQ(t.encode("the", false), (std::vector<int32_t>{'t', 257}));
  // "hello the world" -> hello, Ġthe, Ġworld.
  EXPECT_EQ(t.encode("hello the world", true), (std::vector<int32_t>{270, 261, 258, 266}));
  // Equal ranks: the leftmost pair merges first. "aaa" -> aa + a; "aaaaaa" -> aa aa aa -> aaaa + aa.
  EXPECT_EQ(t.encode("aaa", false), (std::vector<int32_t>{268, 'a'}));
  EXPECT_EQ(t.encode("aaaaaa", false), (std::vector<int32_t>{269, 268}));
  // Unmergeable characters: one token per byte character.
  EXPECT_EQ(t.encode("Q!", false), (std::vector<int32_t>{'Q', '!'}));
  // "é" = C3 A9: byte characters 'Ã' (id 0xC3) and '©' (id 0xA9).
  EXPECT_EQ(t.encode("\xC3\xA9", false), (std::vector<int32_t>{0xC3, 0xA9}));
}

TEST(BpeTokenizer, DecodeMapsBackThroughTheByteTable) {
  const BpeTokenizer t(hand_spec());
  EXPECT_EQ(t.token_bytes(266), " world");
  EXPECT_EQ(t.token_bytes(0xC3), "\xC3");
  EXPECT_EQ(t.token_bytes(270), "<|begin_of_text|>");
  EXPECT_EQ(t.decode_piece(-1, 270), "");
  EXPECT_EQ(t.decode_piece(270, 266), " world");  // no space stripping for byte-level BPE
  EXPECT_EQ(t.decode(t.encode("hello the world", true)), "hello the world");
  EXPECT_EQ(t.piece(258), "\xC4\xA0the");
}

TEST(BpeTokenizer, SpecialTokensAreSplitOutFirst) {
  const BpeTokenizer t(hand_spec());
  EXPECT_EQ(t.encode("<|begin_of_text|>hello<|user|> the<|end_of_text|>", false),
            (std::vector<int32_t>{270, 261, 272, 258, 271}));
  TokenizerSpec s = hand_spec();
  s.parse_special = false;  // control texts are then plain text; user-defined ones still split out
  const BpeTokenizer plain(s);
  const auto ids = plain.encode("<|end_of_text|><|user|>", false);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 271), 0);
  EXPECT_EQ(ids.back(), 272);
  EXPECT_EQ(plain.decode(ids), "<|end_of_text|><|user|>");
}

TEST(BpeTokenizer, IgnoreMergesForLlama3) {
  // "xyz" is a token no merge reaches: Llama-3 (ignore_merges) takes the whole word, GPT-2 does not.
  EXPECT_EQ(BpeTokenizer(hand_spec("llama-bpe")).encode("xyz", false), (std::vector<int32_t>{273}));
  EXPECT_EQ(BpeTokenizer(hand_spec("gpt2")).encode("xyz", false), (std::vector<int32_t>{'x', 'y', 'z'}));
}

TEST(BpeTokenizer, EdgeInputs) {
  const BpeTokenizer t(hand_spec());
  EXPECT_EQ(t.encode("", true), (std::vector<int32_t>{270}));
  EXPECT_TRUE(t.encode("", false).empty());
  EXPECT_EQ(t.encode("   ", false), (std::vector<int32_t>{' ', ' ', ' '}));
  std::mt19937 rng(5);
  // Arbitrary bytes round-trip, except that invalid UTF-8 becomes U+FFFD per bad byte first (llama.cpp's rule).
  for (int trial = 0; trial < 200; ++trial) {
    std::string s;
    for (int i = 0, n = static_cast<int>(rng() % 40); i < n; ++i) s.push_back(static_cast<char>(rng() % 256));
    for (const char* pre : {"gpt2", "llama-bpe"}) {
      const BpeTokenizer u(hand_spec(pre));
      ASSERT_EQ(u.decode(u.encode(s, false)), reencode_utf8_lossy(s)) << pre;
    }
  }
  EXPECT_EQ(t.decode(t.encode("a\xFF" "b\xE2\x82", false)), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(t.decode(t.encode("h\xC3\xA9 \xF0\x9F\xA6\x99", false)), "h\xC3\xA9 \xF0\x9F\xA6\x99");  // valid: exact
}

// Complexity, not wall time (see support/complexity.h).
TEST(BpeTokenizer, LongInputScalesSubQuadratically) {
  const BpeTokenizer t(hand_spec());
  // One 10000-letter word: leftmost-first pairing gives 5000 "aa", then 2500 "aaaa".
  EXPECT_EQ(t.encode(std::string(10000, 'a'), false), std::vector<int32_t>(2500, 269));
  std::string s;
  while (s.size() < 256000) s += "hello the world 12345 ";
  EXPECT_EQ(t.decode(t.encode(s, false)), s);
  EXPECT_LT(test::growth_ratio_16x([&](size_t n) { (void)t.encode(std::string(n, 'a'), false); }, 16000),
            test::kSubQuadraticMaxRatio16x);
  EXPECT_LT(test::growth_ratio_16x([&](size_t n) { (void)t.encode(s.substr(0, n), false); }, 16000),
            test::kSubQuadraticMaxRatio16x);
}

TEST(BpeTokenizer, RejectsBadSpecs) {
  TokenizerSpec s = hand_spec();
  s.merges.push_back("nospace");
  EXPECT_THROW(BpeTokenizer{s}, InvalidArgument);
  s = hand_spec();
  s.merges.push_back("a ");
  EXPECT_THROW(BpeTokenizer{s}, InvalidArgument);
  s = hand_spec();
  s.pre = "no-such-pre";
  EXPECT_THROW(BpeTokenizer{s}, Unsupported);
  try {
    s.pre = "kimi-k2";  // known to llama.cpp, refused by name
    BpeTokenizer{s};
    ADD_FAILURE() << "kimi-k2 accepted";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("'kimi-k2'"), std::string::npos) << e.what();
  }
  s = hand_spec();
  s.merges.clear();  // a BPE vocabulary without merges cannot tokenize
  EXPECT_THROW(BpeTokenizer{s}, InvalidArgument);
  s = hand_spec();
  s.eos_id = 100000;
  EXPECT_THROW(BpeTokenizer{s}, InvalidArgument);
  s = hand_spec();
  s.bos_id = -1;
  EXPECT_THROW(BpeTokenizer(s).encode("a", true), InvalidArgument);
  const BpeTokenizer t(hand_spec());
  EXPECT_THROW(t.piece(274), InvalidArgument);
  EXPECT_THROW(t.decode_piece(-2, 3), InvalidArgument);
  EXPECT_EQ(make_tokenizer(hand_spec())->encode("hello", false), (std::vector<int32_t>{261}));
}

}  // namespace
}  // namespace wgrt::text
