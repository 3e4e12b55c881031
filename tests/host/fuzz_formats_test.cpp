// Mutation fuzzing of the format readers (GGUF, llama2.c checkpoint, llama2.c tokenizer file). Seeds: the
// corpus seeds (tests/support/format_corpus.cpp, committed in tests/corpus), the real GGUF's metadata
// re-written around a tiny tensor, and raw prefixes of the real model files. Each mutant (bit flips, byte
// sets, truncation, insertion, big integers written over count/size fields, chunk duplication; deterministic
// xorshift RNG) must parse or throw wgrt::Error: any other exception fails the test, a crash kills it.
// Wall time is capped at ~12 s in all (iterations are counted and printed).
// WGRT_REGEN_CORPUS=1 rewrites tests/corpus from tests/support/format_corpus.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>

#include "support/format_corpus.h"
#include "support/fuzz_exercise.h"
#include "support/paths.h"
#include "support/synth_model.h"

namespace wgrt {
namespace {

namespace fs = std::filesystem;
const std::string kStoriesGguf = test::shared_path("models/stories260K/stories260K.gguf");

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return s;
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
};

std::vector<uint8_t> mutate(std::vector<uint8_t> b, Rng& r, const std::vector<size_t>& count_fields) {
  static const uint64_t kBig[] = {~0ull, 1ull << 63, 1ull << 62, 1ull << 32, 0x7FFFFFFFull, 0xFFFFFFFFull,
                                  0x80000000ull, 0, 1, 2, 0x100000ull, 0x10000000000ull};
  const int n_mut = 1 + int(r.below(4));
  for (int m = 0; m < n_mut; ++m) {
    const size_t pos = r.below(b.size());
    switch (r.below(8)) {
      case 0: if (!b.empty()) b[pos] ^= uint8_t(1u << r.below(8)); break;
      case 1: if (!b.empty()) b[pos] = uint8_t(r.below(3) == 0 ? 0 : r.below(2) ? 0xFF : r.next()); break;
      case 2: b.resize(r.below(b.size() + 1)); break;
      case 3: b.insert(b.begin() + std::ptrdiff_t(pos), 1 + r.below(16), uint8_t(r.next())); break;
      case 4:
      case 5: {  // big integer at a random or a known count/size field (u64 or u32 wide)
        size_t at = r.below(2) && !count_fields.empty() ? count_fields[r.below(count_fields.size())] : pos;
        uint64_t v = kBig[r.below(std::size(kBig))];
        size_t w = r.below(2) ? 8 : 4;
        if (at + w <= b.size()) std::memcpy(b.data() + at, &v, w);
        break;
      }
      case 6: {  // duplicate a chunk elsewhere
        size_t len = r.below(64), from = r.below(b.size());
        if (from + len <= b.size()) {
          std::vector<uint8_t> chunk(b.begin() + std::ptrdiff_t(from), b.begin() + std::ptrdiff_t(from + len));
          b.insert(b.begin() + std::ptrdiff_t(r.below(b.size() + 1)), chunk.begin(), chunk.end());
        }
        break;
      }
      default:  // overwrite a run of random bytes
        for (size_t i = pos, e = std::min(b.size(), pos + 1 + r.below(8)); i < e; ++i) b[i] = uint8_t(r.next());
    }
  }
  return b;
}

using Exercise = std::function<size_t(std::span<const uint8_t>)>;

struct Stats {
  size_t runs = 0, ok = 0, errors = 0;
};

void fuzz(const std::vector<std::vector<uint8_t>>& seeds, const std::vector<size_t>& fields, const Exercise& ex,
          size_t iterations, double seconds, uint64_t rng_seed, Stats& st) {
  Rng r{rng_seed};
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < iterations; ++i) {
    if (i % 256 == 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) break;
    auto input = mutate(seeds[i % seeds.size()], r, fields);
    ++st.runs;
    try {
      ex(input);
      ++st.ok;
    } catch (const Error&) {
      ++st.errors;
    } catch (const std::exception& e) {
      FAIL() << "iteration " << i << ": non-wgrt exception " << typeid(e).name() << ": " << e.what();
    }
  }
}

std::vector<uint8_t> prefix_of(const std::string& path, size_t n) {
  auto b = test::read_file(path);
  b.resize(std::min(n, b.size()));
  return b;
}

TEST(FuzzFormats, CommittedCorpusIsCurrentAndParses) {
  const fs::path dir = test::source_path("tests/corpus");
  auto seeds = test::gguf_corpus_seeds();
  auto l2c = test::llama2c_corpus_seeds();
  seeds.insert(seeds.end(), l2c.begin(), l2c.end());
  if (const char* e = std::getenv("WGRT_REGEN_CORPUS"); e && std::string(e) == "1") {
    for (const auto& s : seeds) {
      fs::create_directories((dir / s.file).parent_path());
      test::write_file((dir / s.file).string(), s.bytes);
    }
  }
  size_t total = 0;
  for (const auto& s : seeds) {
    SCOPED_TRACE(s.file);
    ASSERT_TRUE(fs::exists(dir / s.file)) << "run with WGRT_REGEN_CORPUS=1";
    auto bytes = test::read_file((dir / s.file).string());
    total += bytes.size();
    if (s.file.ends_with(".gguf")) EXPECT_GT(test::exercise_gguf(bytes), 0u);
    else if (s.file.ends_with(".tok")) EXPECT_EQ(test::exercise_llama2c_tokenizer(bytes), 8u);
    else EXPECT_GT(test::exercise_llama2c(bytes), 0u);
  }
  EXPECT_LT(total, 50u * 1024u);
  // The synthetic model seeds are complete models: they load through the format-neutral loader.
  EXPECT_NO_THROW(load_gguf_llama(GgufFile::from_bytes(seeds[0].bytes)));
}

TEST(FuzzFormats, GgufMutationsParseOrThrowWgrtError) {
  std::vector<std::vector<uint8_t>> seeds;
  for (auto& s : test::gguf_corpus_seeds()) seeds.push_back(std::move(s.bytes));
  seeds.push_back(test::real_metadata_seed(kStoriesGguf));  // real tokenizer arrays, not committed
  ASSERT_FALSE(seeds.back().empty());
  seeds.push_back(prefix_of(kStoriesGguf, 8192));  // real header and the start of the token array
  // Header counts (8, 16), first key length (24) and the first value type / string length after it.
  const std::vector<size_t> fields = {8, 16, 24, 52, 56, 60};
  Stats st;
  fuzz(seeds, fields, test::exercise_gguf, 40000, 7.0, 0x1234567ull, st);
  std::printf("gguf: %zu mutants, %zu parsed, %zu wgrt::Error\n", st.runs, st.ok, st.errors);
  EXPECT_GT(st.runs, 2000u);
  EXPECT_GT(st.ok, 0u);
  EXPECT_GT(st.errors, 0u);
}

TEST(FuzzFormats, Llama2cMutationsParseOrThrowWgrtError) {
  std::vector<std::vector<uint8_t>> seeds, tok_seeds;
  for (auto& s : test::llama2c_corpus_seeds())
    (s.file.ends_with(".tok") ? tok_seeds : seeds).push_back(std::move(s.bytes));
  seeds.push_back(prefix_of(test::shared_path("models/stories260K/stories260K.bin"), 4096));
  tok_seeds.push_back(prefix_of(test::shared_path("models/stories260K/tok512.bin"), 1024));
  const std::vector<size_t> fields = {0, 4, 8, 12, 16, 20, 24};
  Stats st, tt;
  fuzz(seeds, fields, test::exercise_llama2c, 30000, 3.0, 0xBADC0DEull, st);
  fuzz(tok_seeds, {0, 4, 8, 12}, test::exercise_llama2c_tokenizer, 30000, 2.0, 0xFEEDull, tt);
  std::printf("llama2c: %zu mutants (%zu ok); tokenizer: %zu mutants (%zu ok)\n", st.runs, st.ok, tt.runs, tt.ok);
  EXPECT_GT(st.runs, 2000u);
  EXPECT_GT(st.ok, 0u);
  EXPECT_GT(tt.ok, 0u);
}

}  // namespace
}  // namespace wgrt
