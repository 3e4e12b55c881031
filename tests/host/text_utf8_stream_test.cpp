// Utf8Stream: whole characters only, U+FFFD per maximal ill-formed subpart (Unicode 16 table 3-8 examples).
#include <gtest/gtest.h>

#include "text/utf8_stream.h"

namespace wgrt::text {
namespace {

const std::string R = "\xEF\xBF\xBD";

TEST(Utf8Stream, HoldsBackASplitCharacter) {
  Utf8Stream s;
  // "€" = E2 82 AC, arriving one byte-fallback token at a time.
  EXPECT_EQ(s.push("a\xE2"), "a");
  EXPECT_EQ(s.pending(), 1u);
  EXPECT_EQ(s.push("\x82"), "");
  EXPECT_EQ(s.push("\xAC" "b"), "\xE2\x82\xAC" "b");
  EXPECT_EQ(s.pending(), 0u);
  // 4-byte emoji U+1F600 split 1+3.
  EXPECT_EQ(s.push("\xF0"), "");
  EXPECT_EQ(s.push("\x9F\x98\x80"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(s.flush(), "");
}

TEST(Utf8Stream, InvalidSequencesBecomeReplacementOnceTheyCannotComplete) {
  Utf8Stream s;
  EXPECT_EQ(s.push("\xE2\x82"), "");
  EXPECT_EQ(s.push("x"), R + "x");  // E2 82 is one maximal subpart: one U+FFFD
  EXPECT_EQ(s.push("\xFF"), R);
  EXPECT_EQ(s.push("\x80\x80"), R + R);  // lone continuation bytes: one each
  EXPECT_EQ(s.push("\xF0\x9F"), "");
  EXPECT_EQ(s.flush(), R);  // incomplete at end of stream
  EXPECT_EQ(s.pending(), 0u);
}

TEST(Utf8Stream, UnicodeTable3_8Example) {
  // Unicode 16 §3.9, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 -> a FFFD FFFD FFFD b FFFD c FFFD FFFD d
  EXPECT_EQ(sanitize_utf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + R + R + R + "b" + R + "c" + R + R + "d");
}

TEST(Utf8Stream, RejectsOverlongsSurrogatesAndOutOfRange) {
  EXPECT_EQ(sanitize_utf8("\xC0\xAF"), R + R);          // overlong '/': C0 is never a lead byte
  EXPECT_EQ(sanitize_utf8("\xE0\x80\xAF"), R + R + R);  // overlong 3-byte: E0 needs A0..BF next
  EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), R + R + R);  // surrogate D800
  EXPECT_EQ(sanitize_utf8("\xF4\x90\x80\x80"), R + R + R + R);  // > U+10FFFF
  EXPECT_EQ(sanitize_utf8("\xED\x9F\xBF"), "\xED\x9F\xBF");     // U+D7FF is fine
  EXPECT_EQ(sanitize_utf8("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF");  // U+10FFFF is fine
}

TEST(Utf8Stream, ByteAtATimeEqualsWhole) {
  const std::string text = "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80 \xFF\xE2\x82 z\xC3";
  Utf8Stream s;
  std::string out;
  for (char c : text) out += s.push(std::string(1, c));
  out += s.flush();
  EXPECT_EQ(out, sanitize_utf8(text));
  EXPECT_EQ(out, "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80 " + R + R + " z" + R);
}

}  // namespace
}  // namespace wgrt::text
