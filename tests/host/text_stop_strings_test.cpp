// StopMatcher (src/text/stop_strings.h): stop strings found wherever the stream is split, the held-back tail
// released at the end, earliest match winning. Oracle: std::string::find on the whole text.
#include <gtest/gtest.h>

#include <random>

#include "text/stop_strings.h"

using wgrt::text::StopMatcher;

namespace {

struct Outcome {
  std::string shown;
  bool found;
  std::string matched;
};

Outcome stream(const std::vector<std::string>& stops, const std::vector<std::string>& pieces) {
  StopMatcher m(stops);
  Outcome o;
  for (const auto& p : pieces) o.shown += m.push(p);
  o.shown += m.flush();
  o.found = m.found();
  o.matched = m.matched();
  return o;
}

// The expected outcome on the whole text: up to the start of the occurrence that ends first (ties: the one
// that starts first).
Outcome oracle(const std::vector<std::string>& stops, const std::string& text) {
  Outcome o{text, false, ""};
  size_t best_end = std::string::npos, best = std::string::npos;
  for (const auto& s : stops) {
    if (s.empty()) continue;
    size_t at = text.find(s);
    if (at == std::string::npos) continue;
    if (at + s.size() < best_end || (at + s.size() == best_end && at < best)) best_end = at + s.size(), best = at, o.matched = s;
  }
  if (best != std::string::npos) o.shown = text.substr(0, best), o.found = true;
  return o;
}

}  // namespace

TEST(StopStrings, SplitAcrossPieces) {
  Outcome o = stream({"<|im_end|>"}, {"Hello <|im", "_e", "nd|> never shown"});
  EXPECT_EQ(o.shown, "Hello ");
  EXPECT_TRUE(o.found);
  EXPECT_EQ(o.matched, "<|im_end|>");
  // A prefix that does not complete is released.
  o = stream({"<|im_end|>"}, {"a <|im", "_start"});
  EXPECT_EQ(o.shown, "a <|im_start");
  EXPECT_FALSE(o.found);
  // Held back while it may still complete, released by flush.
  StopMatcher m({"STOP"});
  EXPECT_EQ(m.push("xxST"), "xx");
  EXPECT_EQ(m.pending(), 2u);
  EXPECT_EQ(m.push("O"), "");
  EXPECT_EQ(m.flush(), "STO");
  // Inside one piece, at the very start; of two, the one that completes first, however the text is split.
  EXPECT_EQ(stream({"b", "a"}, {"xab"}).matched, "a");
  EXPECT_EQ(stream({"abc", "b"}, {"abc"}).matched, "b");
  EXPECT_EQ(stream({"abc", "b"}, {"a", "bc"}).shown, "a");
  EXPECT_EQ(stream({"ab"}, {"ab"}).shown, "");
  // No stop strings (or only empty ones): everything passes through, nothing is held.
  StopMatcher none({""});
  EXPECT_EQ(none.push("abc"), "abc");
  EXPECT_EQ(none.pending(), 0u);
  EXPECT_FALSE(none.found());
  // After a match, nothing more.
  StopMatcher after({"x"});
  EXPECT_EQ(after.push("1x2"), "1");
  EXPECT_EQ(after.push("3"), "");
  EXPECT_EQ(after.flush(), "");
}

TEST(StopStrings, EverySplitMatchesTheOracle) {
  std::mt19937 rng(5);
  const std::string alphabet = "ab<|>";
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    for (int i = int(rng() % 24); i > 0; --i) text += alphabet[rng() % alphabet.size()];
    std::vector<std::string> stops;
    for (int k = int(rng() % 3); k >= 0; --k) {
      std::string s;
      for (int i = 1 + int(rng() % 4); i > 0; --i) s += alphabet[rng() % alphabet.size()];
      stops.push_back(s);
    }
    std::vector<std::string> pieces;
    for (size_t i = 0; i < text.size();) {
      size_t n = std::min(text.size() - i, size_t(rng() % 4));
      pieces.push_back(text.substr(i, n));
      i += n;
    }
    Outcome got = stream(stops, pieces), want = oracle(stops, text);
    ASSERT_EQ(got.shown, want.shown) << text;
    ASSERT_EQ(got.found, want.found) << text;
  }
}
