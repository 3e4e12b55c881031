// Pre-tokenizer splits worked out by hand from the regexes (HF tokenizers / llama.cpp give the same words).
#include <gtest/gtest.h>

#include <random>

#include <wgrt/error.h>

#include "text/pretokenizer.h"

namespace wgrt::text {
namespace {

using V = std::vector<std::string>;

V split(std::string_view pre, std::string_view text) { return PreTokenizer::from_name(pre).split_strings(text); }

TEST(PreTokenizer, Gpt2) {
  EXPECT_EQ(split("gpt2", "Hello world"), (V{"Hello", " world"}));
  EXPECT_EQ(split("gpt2", "I'm don't"), (V{"I", "'m", " don", "'t"}));
  EXPECT_EQ(split("gpt2", "DON'T"), (V{"DON", "'", "T"}));  // GPT-2 contractions are lower-case only
  EXPECT_EQ(split("gpt2", "12345 x"), (V{"12345", " x"}));
  EXPECT_EQ(split("gpt2", "a   b"), (V{"a", "  ", " b"}));  // \s+(?!\S) leaves the last space to " b"
  EXPECT_EQ(split("gpt2", "a\n\nb"), (V{"a", "\n", "\n", "b"}));
  EXPECT_EQ(split("gpt2", "h\xC3\xA9llo w\xC3\xB6rld"), (V{"h\xC3\xA9llo", " w\xC3\xB6rld"}));  // \p{L} is Unicode
  EXPECT_EQ(split("gpt2", "\xE4\xBD\xA0\xE5\xA5\xBD!!"), (V{"\xE4\xBD\xA0\xE5\xA5\xBD", "!!"}));  // 你好!!
  EXPECT_EQ(split("gpt2", "x  "), (V{"x", "  "}));
}

TEST(PreTokenizer, Llama3) {
  EXPECT_EQ(split("llama-bpe", "DON'T i'M"), (V{"DON", "'T", " i", "'M"}));  // case-insensitive contractions
  EXPECT_EQ(split("llama-bpe", "12345"), (V{"123", "45"}));
  EXPECT_EQ(split("llama-bpe", "a1234567b"), (V{"a", "123", "456", "7", "b"}));
  EXPECT_EQ(split("llama-bpe", "Hello, world!!\n"), (V{"Hello", ",", " world", "!!\n"}));
  EXPECT_EQ(split("llama-bpe", "$hello"), (V{"$hello"}));  // one optional non-letter before letters
  EXPECT_EQ(split("llama-bpe", "a\n\nb"), (V{"a", "\n\n", "b"}));
  EXPECT_EQ(split("llama-bpe", "  hello"), (V{" ", " hello"}));
  EXPECT_EQ(split("llama3", "x \n y"), (V{"x", " \n", " y"}));
}

TEST(PreTokenizer, Qwen2SplitsEveryDigit) {
  EXPECT_EQ(split("qwen2", "12345"), (V{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(split("qwen2", "DON'T"), (V{"DON", "'T"}));
}

TEST(PreTokenizer, SmollmAndDefaultLists) {
  EXPECT_EQ(split("smollm", "ab12 cd"), (V{"ab", "1", "2", " cd"}));
  // default: punctuation runs, then GPT-2, then \p{N}+, then groups of three ASCII digits.
  EXPECT_EQ(split("default", "Hello, world 12345"), (V{"Hello", ",", " world", " ", "123", "45"}));
}

TEST(PreTokenizer, InvalidUtf8IsKeptAsItsOwnFragment) {
  EXPECT_EQ(split("gpt2", "a\xFF" "b"), (V{"a", "\xFF", "b"}));
  EXPECT_EQ(split("llama-bpe", "ab\xE2\x82"), (V{"ab", "\xE2\x82"}));
}

TEST(PreTokenizer, FragmentsAlwaysCoverTheInput) {
  std::mt19937 rng(11);
  for (const char* pre : {"gpt2", "llama-bpe", "qwen2", "smollm", "default"}) {
    const PreTokenizer p = PreTokenizer::from_name(pre);
    for (int trial = 0; trial < 200; ++trial) {
      std::string s;
      for (int i = 0, n = static_cast<int>(rng() % 50); i < n; ++i) {
        s.push_back(rng() % 3 ? " a1'\n\t.Z"[rng() % 9] : static_cast<char>(rng() % 256));
      }
      std::string joined;
      for (const auto& f : p.split_strings(s)) {
        ASSERT_FALSE(f.empty());
        joined += f;
      }
      ASSERT_EQ(joined, s) << pre;
    }
  }
}

// The regex lists added from llama.cpp's table, on small cases worked out by hand from the regexes.
TEST(PreTokenizer, MoreNames) {
  // "gpt-2" is the name llama.cpp's converter writes; "gpt2" (older wgrt files) is the same list.
  EXPECT_EQ(split("gpt-2", "I'm  ok"), split("gpt2", "I'm  ok"));
  EXPECT_EQ(split("gpt-2", "I'm  ok"), (V{"I", "'m", " ", " ok"}));
  // qwen35: combining marks join letters (e + U+0301), qwen2 cuts them off.
  EXPECT_EQ(split("qwen35", "cafe\xCC\x81 x"), (V{"cafe\xCC\x81", " x"}));
  EXPECT_EQ(split("qwen2", "cafe\xCC\x81 x"), (V{"cafe", "\xCC\x81", " x"}));
  // deepseek-coder: newlines alone, optional space + letters, punctuation runs, CJK runs, single digits.
  EXPECT_EQ(split("deepseek-coder", "a\nb 12"), (V{"a", "\n", "b", " ", "1", "2"}));
  // deepseek-llm: \s+$ takes trailing white space at the very end only (not before a final newline).
  EXPECT_EQ(split("deepseek-llm", "hi  "), (V{"hi", "  "}));
  EXPECT_EQ(split("deepseek-llm", "x 123"), (V{"x", " ", "123"}));
  // falcon: punctuation (with backtick) first, GPT-2 without the \s+ tail, then groups of three ASCII digits.
  EXPECT_EQ(split("falcon", "a`b 1234"), (V{"a", "`", "b", " ", "123", "4"}));
  // starcoder / refact / command-r: every digit alone before GPT-2.
  for (const char* pre : {"starcoder", "refact", "command-r", "mpt"}) {
    EXPECT_EQ(split(pre, "ab 12").size(), std::string_view(pre) == "mpt" ? 2u : 4u) << pre;
  }
  // gemma4: runs of newlines and runs of anything else.
  EXPECT_EQ(split("gemma4", "a b\n\nc"), (V{"a b", "\n\n", "c"}));
  // bloom: runs of characters other than white space and a few punctuation marks, with an optional space.
  EXPECT_EQ(split("bloom", "hi, you"), (V{"hi", ",", " you"}));
  // tekken (lookaheads): CamelCase words split before upper-case letters.
  EXPECT_EQ(split("tekken", "HelloWorld"), (V{"Hello", "World"}));
}

TEST(PreTokenizer, Errors) {
  EXPECT_THROW(PreTokenizer::from_name("kimi-k2"), Unsupported);  // llama.cpp's hand-written splitter
  EXPECT_THROW(PreTokenizer::from_name("no-such-pre"), Unsupported);
  EXPECT_NE(PreTokenizer::unsupported_pre_message("superbpe").find("'superbpe'"), std::string::npos);
  EXPECT_NE(PreTokenizer::unsupported_pre_message("zzz").find("'zzz'"), std::string::npos);
  EXPECT_THROW(PreTokenizer({"(unclosed"}), InvalidArgument);
  EXPECT_TRUE(PreTokenizer::from_name("gpt2").split("").empty());
}

}  // namespace
}  // namespace wgrt::text
