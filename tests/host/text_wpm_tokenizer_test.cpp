// WordPiece (GGUF "bert") on a hand-made vocabulary, expected ids worked out by hand from the rules in
// wpm_tokenizer.h (HF BertTokenizer / llama.cpp give the same on these), plus the Unicode data it relies on.
#include <gtest/gtest.h>

#include <wgrt/error.h>

#include "text/tokenizer.h"
#include "text/unicode_props.h"
#include "text/wpm_tokenizer.h"

namespace wgrt::text {
namespace {

using I = std::vector<int32_t>;
using V = std::vector<std::string>;

// 0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 ▁hello 5 ▁world 6 ▁un 7 aff 8 able 9 ▁, 10 ▁! 11 ▁cafe 12 ▁你 13 ▁a 14 ▁$
TokenizerSpec wpm_spec() {
  TokenizerSpec s;
  s.model = "bert";
  s.tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "\u2581hello", "\u2581world", "\u2581un", "aff", "able",
              "\u2581,", "\u2581!", "\u2581cafe", "\u2581\u4F60", "\u2581a", "\u2581$"};
  s.token_types = {3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  s.unk_id = 1;
  s.bos_id = 2;
  s.sep_id = 3;
  return s;
}

TEST(WpmTokenizer, GreedyLongestMatch) {
  const WpmTokenizer t(wpm_spec());
  EXPECT_EQ(t.encode("hello world", false), (I{4, 5}));
  EXPECT_EQ(t.encode("unaffable", false), (I{6, 7, 8}));         // ▁un + aff + able
  EXPECT_EQ(t.encode("Hello, WORLD!", false), (I{4, 9, 5, 10}));  // lower-cased; punctuation alone
  EXPECT_EQ(t.encode("unaffablex hello", false), (I{1, 4}));      // one uncovered byte: the whole word is [UNK]
  EXPECT_EQ(t.encode("hello", true), (I{2, 4, 3}));               // [CLS] ... [SEP]
  EXPECT_TRUE(t.encode(" \t\n ", false).empty());
}

TEST(WpmTokenizer, Normalization) {
  const WpmTokenizer t(wpm_spec());
  EXPECT_EQ(t.words("Caf\xC3\xA9"), (V{"cafe"}));                    // é -> e (NFD, mark dropped), lower-cased
  EXPECT_EQ(t.words("cafe\xCC\x81"), (V{"cafe"}));                   // a combining accent is dropped
  EXPECT_EQ(t.words("a\xE4\xBD\xA0" "b"), (V{"a", "\xE4\xBD\xA0", "b"}));  // CJK ideographs are words alone
  EXPECT_EQ(t.words("a$b"), (V{"a", "$", "b"}));                     // ASCII symbols too
  EXPECT_EQ(t.words("a\xE2\x82\xAC" "b"), (V{"a\xE2\x82\xAC" "b"}));  // a non-ASCII symbol (€) is not
  EXPECT_EQ(t.words("a\x01\xFF" "b\xE2\x80\x8B"), (V{"ab"}));       // controls, invalid bytes (U+FFFD), Cf dropped
  EXPECT_EQ(t.words("x\xC2\xA0y\xE3\x80\x80z"), (V{"x", "y", "z"}));  // NBSP and ideographic space split
  EXPECT_EQ(t.encode("Caf\xC3\xA9 \xE4\xBD\xA0", false), (I{11, 12}));
  TokenizerSpec s = wpm_spec();
  s.lowercase = false;
  s.strip_accents = false;
  const WpmTokenizer keep(std::move(s));
  EXPECT_EQ(keep.words("Caf\xC3\xA9"), (V{"Caf\xC3\xA9"}));
  EXPECT_EQ(keep.encode("Hello", false), (I{1}));
}

TEST(WpmTokenizer, DecodeAndErrors) {
  const WpmTokenizer t(wpm_spec());
  EXPECT_EQ(t.decode(t.encode("hello world unaffable", true)), "hello world unaffable");
  TokenizerSpec s = wpm_spec();
  s.unk_id = -1;
  EXPECT_THROW(WpmTokenizer{s}, InvalidArgument);
  s = wpm_spec();
  s.sep_id = 99;
  EXPECT_THROW(WpmTokenizer{s}, InvalidArgument);
  EXPECT_NE(dynamic_cast<WpmTokenizer*>(make_tokenizer(wpm_spec()).get()), nullptr);
}

TEST(MakeTokenizer, UnsupportedModelsAreRefusedByName) {
  for (const char* m : {"t5", "rwkv", "plamo2", "none", "nonsense"}) {
    TokenizerSpec s = wpm_spec();
    s.model = m;
    try {
      make_tokenizer(std::move(s));
      ADD_FAILURE() << m << " accepted";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + m + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(UnicodeProps, AgreesWithTheUnicodeData) {
  EXPECT_EQ(cp_flags('a').category, CpFlags::Letter);
  EXPECT_EQ(cp_flags(0x0416).category, CpFlags::Letter);  // Ж
  EXPECT_EQ(cp_flags('7').category, CpFlags::Number);
  EXPECT_EQ(cp_flags(0x00BD).category, CpFlags::Number);  // ½ (No)
  EXPECT_EQ(cp_flags(',').category, CpFlags::Punctuation);
  EXPECT_EQ(cp_flags('$').category, CpFlags::Symbol);
  EXPECT_EQ(cp_flags(0x0301).category, CpFlags::Mark);
  EXPECT_EQ(cp_flags(0x200B).category, CpFlags::Control);  // ZERO WIDTH SPACE is Cf
  EXPECT_EQ(cp_flags(0x0378).category, CpFlags::Undefined);
  EXPECT_EQ(cp_flags(0x110000).category, CpFlags::Undefined);
  EXPECT_TRUE(cp_flags(0x3000).whitespace);
  EXPECT_TRUE(cp_flags(0x85).whitespace);
  EXPECT_FALSE(cp_flags(0x200B).whitespace);
  EXPECT_EQ(cp_tolower('A'), uint32_t('a'));
  EXPECT_EQ(cp_tolower(0x0416), 0x0436u);
  EXPECT_EQ(cp_tolower(0x0130), 0x0069u);  // İ -> i (simple mapping)
  EXPECT_EQ(cp_nfd_first(0x00E9), uint32_t('e'));
  EXPECT_EQ(cp_nfd_first(0x1EC7), uint32_t('e'));  // ệ: decomposes twice
  EXPECT_EQ(cp_nfd_first(0xAC00), 0x1100u);        // 가 -> ᄀ (Hangul, algorithmic)
  EXPECT_EQ(cp_nfd_first('x'), uint32_t('x'));
}

TEST(UnicodeProps, LossyUtf8FollowsLlamaCpp) {
  using C = std::vector<uint32_t>;
  EXPECT_EQ(decode_utf8_lossy("a\xC3\xA9\xF0\x9F\xA6\x99"), (C{'a', 0xE9, 0x1F999}));
  EXPECT_EQ(decode_utf8_lossy("\x80" "a"), (C{0xFFFD, 'a'}));          // stray continuation byte
  EXPECT_EQ(decode_utf8_lossy("\xE2\x82"), (C{0xFFFD, 0xFFFD}));        // truncated: one per byte
  EXPECT_EQ(decode_utf8_lossy("\xC0\x80"), (C{0}));                     // overlong forms are not rejected
  EXPECT_EQ(decode_utf8_lossy("\xF7\xBF\xBF\xBF"), (C{0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD}));  // above U+10FFFF
  EXPECT_EQ(reencode_utf8_lossy("ok\xFF"), "ok\xEF\xBF\xBD");
}

}  // namespace
}  // namespace wgrt::text
