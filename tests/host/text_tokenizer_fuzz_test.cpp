// Mutation fuzzing of the tokenizers through tests/support/tokenizer_fuzz.h (the same checks as
// fuzz/fuzz_tokenizer): seeds from tests/corpus/tokenizer plus every selector byte with a mixed text, mutated
// (byte sets, insertions of UTF-8 fragments and special texts, truncation; deterministic xorshift RNG). Any
// exception other than wgrt::Error fails the test. Capped at ~4 s of wall time; iterations are printed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/paths.h"
#include "support/tokenizer_fuzz.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

namespace fs = std::filesystem;

TEST(TokenizerFuzz, MutantsKeepTheInvariants) {
  std::vector<std::vector<uint8_t>> seeds;
  for (const auto& e : fs::directory_iterator(test::source_path("tests/corpus/tokenizer"))) {
    std::ifstream in(e.path(), std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GE(seeds.size(), 5u);
  const std::string mixed = "Hello, world! I'm  12345\n\n\t\xC3\xA9\xE4\xBD\xA0 \xF0\x9F\xA6\x99<|eot|><s>";
  for (std::size_t c = 0; c < test::tokenizer_fuzz_choices(); ++c) {
    std::vector<uint8_t> s{static_cast<uint8_t>(c)};
    s.insert(s.end(), mixed.begin(), mixed.end());
    seeds.push_back(std::move(s));
  }
  const char* frags[] = {"\xC3", "\xA9", "\xE2\x96\x81", "<|eot|>", "<s>", "'s", "  ", "\r\n", "\xF0\x9F", "\xFF"};
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t iters = 0;
  for (const auto& s : seeds) ASSERT_NO_THROW(test::exercise_tokenizer(s)) << "seed " << iters++;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(4)) {
    std::vector<uint8_t> m = seeds[next() % seeds.size()];
    for (int k = 0, n = 1 + int(next() % 4); k < n && !m.empty(); ++k) {
      const std::size_t at = 1 + next() % m.size();
      switch (next() % 3) {
        case 0:
          if (at < m.size()) m[at] = static_cast<uint8_t>(next());
          break;
        case 1: {
          const std::string f = frags[next() % std::size(frags)];
          m.insert(m.begin() + static_cast<std::ptrdiff_t>(std::min(at, m.size())), f.begin(), f.end());
          break;
        }
        default:
          m.resize(std::min(at, m.size()));
      }
    }
    try {
      test::exercise_tokenizer(m);
    } catch (const Error&) {
    }  // anything else propagates and fails the test
    ++iters;
  }
  std::printf("tokenizer fuzz: %zu inputs over %zu tokenizers\n", iters, test::tokenizer_fuzz_choices());
}

}  // namespace
}  // namespace wgrt
