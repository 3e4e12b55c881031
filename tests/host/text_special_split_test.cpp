// Splitting special-token texts out of an input (VocabTable::split_special), as llama.cpp's
// tokenizer_st_partition: longest special text first over the whole input, per-model lstrip/rstrip; and the
// Gemma-4 style BPE (raw UTF-8 pieces, "▁" spaces, "<0xHH>" fallback), on hand-made vocabularies.
#include <gtest/gtest.h>

#include "text/bpe_tokenizer.h"
#include "text/vocab_table.h"

namespace wgrt::text {
namespace {

using F = std::vector<std::pair<int32_t, std::string>>;

F split(const VocabTable& v, std::string_view s) {
  F out;
  for (const auto& f : v.split_special(s)) out.emplace_back(f.token, std::string(f.text));
  return out;
}

// 0 "a" 1 "ab" (user-defined) 2 "bcd" (user-defined) 3 "<|user|>" (user-defined) 4 "<s>" (control)
// 5 "<mask>" (user-defined)
VocabTable table(bool parse_special) {
  return VocabTable({"a", "ab", "bcd", "<|user|>", "<s>", "<mask>"}, {1, 4, 4, 4, 3, 4}, 4, -1, -1, parse_special,
                    "test");
}

TEST(SpecialSplit, LongestTextFirstOverTheWholeInput) {
  const VocabTable v = table(true);
  // Leftmost-longest would give "ab" + "cd"; llama.cpp takes the longer "bcd" first, wherever it is.
  EXPECT_EQ(split(v, "abcd"), (F{{-1, "a"}, {2, "bcd"}}));
  EXPECT_EQ(split(v, "ab ab<s>x"), (F{{1, "ab"}, {-1, " "}, {1, "ab"}, {4, "<s>"}, {-1, "x"}}));
  EXPECT_EQ(split(v, ""), F{});
  EXPECT_EQ(split(v, "zz"), (F{{-1, "zz"}}));
}

TEST(SpecialSplit, ControlTokensOnlyWithParseSpecial) {
  EXPECT_EQ(split(table(false), "x<s>ab"), (F{{-1, "x<s>"}, {1, "ab"}}));
}

TEST(SpecialSplit, StripRulesFollowTheModelName) {
  VocabTable phi = table(true);
  phi.apply_strip_rules("Phi3", "phi3", "default");  // rstrip on the special tokens, not on "<s>"
  EXPECT_EQ(split(phi, "<|user|> \n hi<s> x"), (F{{3, "<|user|>"}, {-1, "hi"}, {4, "<s>"}, {-1, " x"}}));
  VocabTable nomic = table(true);
  nomic.apply_strip_rules("x", "nomic-bert-moe", "default");  // lstrip on "<mask>"
  EXPECT_EQ(split(nomic, "a \t<mask> b"), (F{{-1, "a"}, {5, "<mask>"}, {-1, " b"}}));
  EXPECT_EQ(split(nomic, "  <mask>"), (F{{5, "<mask>"}}));
  const VocabTable plain = table(true);
  EXPECT_EQ(split(plain, "<|user|> hi"), (F{{3, "<|user|>"}, {-1, " hi"}}));
}

// 0 "a" 1 "b" 2 "▁" 3 "▁a" 4 "\n" 5 "\n\n" 6 "<0xC3>" 7 "<0xA9>" 8 "ab" 9 "<bos>"
TokenizerSpec gemma_spec() {
  TokenizerSpec s;
  s.model = "gemma4";
  s.tokens = {"a", "b", "\u2581", "\u2581a", "\n", "\n\n", "<0xC3>", "<0xA9>", "ab", "<bos>"};
  s.token_types = {1, 1, 1, 1, 1, 1, 6, 6, 1, 3};
  s.merges = {"\u2581 a", "a b", "\n \n"};
  s.bos_id = 9;
  s.pre = "ignored: gemma4 always uses its own";
  return s;
}

TEST(GemmaBpe, RawUtf8PiecesEscapedSpacesAndByteFallback) {
  const BpeTokenizer t(gemma_spec());
  EXPECT_EQ(t.encode("ab a", false), (std::vector<int32_t>{8, 3}));          // "ab▁a": ab + ▁a
  EXPECT_EQ(t.encode("a\n\nb", false), (std::vector<int32_t>{0, 5, 1}));     // a newline run is one word
  EXPECT_EQ(t.encode("\xC3\xA9", false), (std::vector<int32_t>{6, 7}));      // é is not a token: its bytes
  EXPECT_EQ(t.decode(t.encode("ab a\n\n\xC3\xA9", false)), "ab a\n\n\xC3\xA9");
  TokenizerSpec s = gemma_spec();
  s.tokens[5] = "zz";  // without the "\n\n" token the run merges through "\n \n", which no longer names a token
  const BpeTokenizer u(s);
  EXPECT_EQ(u.encode("\n\n", false), (std::vector<int32_t>{}));  // llama.cpp drops what has no token or byte
}

}  // namespace
}  // namespace wgrt::text
