// Mutation fuzzing of the chat-template parser and evaluator (the libFuzzer target is
// fuzz/fuzz_chat_template.cpp). Seeds: our snippets in tests/corpus/chat_template. Mutants: byte flips,
// deletions, duplications, and splices of Jinja2 fragments (tag openers, operators, filters, loops); each must
// render or throw wgrt::Error (support/chat_template_exercise.h), never anything else or a crash. Wall time
// is capped at ~6 s (iterations are counted and printed).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support/chat_template_exercise.h"
#include "support/paths.h"

namespace wgrt {
namespace {

namespace fs = std::filesystem;

struct Rng {  // deterministic across platforms (mt19937_64's sequence is fixed by the standard)
  std::mt19937_64 g;
  size_t below(size_t n) { return n ? size_t(g() % n) : 0; }
};

const char* kFragments[] = {"{{", "}}", "{%", "%}", "{#", "#}", "{%-", "-%}", "{{-", "-}}", "{% for x in messages %}",
                            "{% endfor %}", "{% if x %}", "{% else %}", "{% endif %}", "{% set x = ", "|tojson", "|trim",
                            "|length", "|join(', ')", ".split(' ')", "[::-1]", "[1:]", "loop.index", "loop.last",
                            " is defined", " is not none", " in ", " not ", " and ", " or ", " ~ ", " + ", " * 99",
                            "'", "\"", "\\", "(", ")", "[", "]", "{", "}", ",", ":", ".", "|", "namespace(", "range(",
                            "{% macro m(a, b=1) %}", "{% endmacro %}", "m(", "caller()", "{% raw %}", "😀", "\xff",
                            "{% break %}", "messages[0]", "tools", "ns.x", " if ", " else ", "9223372036854775807",
                            "1e308", "{% filter upper %}", "{% endfilter %}", "|selectattr('role', 'equalto', 'user')"};

std::string mutate(std::string s, Rng& r) {
  const int n = 1 + int(r.below(4));
  for (int m = 0; m < n; ++m) {
    const size_t pos = r.below(s.size() + 1);
    switch (r.below(6)) {
      case 0: if (!s.empty() && pos < s.size()) s[pos] = char(s[pos] ^ (1 << r.below(8))); break;
      case 1: s.erase(pos, 1 + r.below(12)); break;
      case 2: {
        const size_t len = r.below(40), from = r.below(s.size() + 1);
        s.insert(pos, s.substr(from, len));
        break;
      }
      case 3: s.resize(r.below(s.size() + 1)); break;
      default: s.insert(pos, kFragments[r.below(std::size(kFragments))]);
    }
  }
  return s;
}

TEST(FuzzChatTemplate, MutationsRenderOrThrowWgrtError) {
  std::vector<std::string> seeds;
  for (const auto& e : fs::directory_iterator(test::source_path("tests/corpus/chat_template"))) {
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    seeds.push_back(ss.str());
  }
  ASSERT_GE(seeds.size(), 20u);
  Rng r{std::mt19937_64(0xC4A7ull)};
  size_t runs = 0, rendered = 0, errors = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < 200000; ++i) {
    if (i % 64 == 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 6.0) break;
    std::string input = mutate(seeds[i % seeds.size()], r);
    if (r.below(4) == 0) input = mutate(input, r);
    ++runs;
    try {
      test::exercise_chat_template({reinterpret_cast<const uint8_t*>(input.data()), input.size()});
      ++rendered;
    } catch (const Error&) {
      ++errors;
    } catch (const std::exception& e) {
      FAIL() << "iteration " << i << ": non-wgrt exception " << e.what() << " for input:\n" << input;
    }
  }
  std::printf("chat template: %zu mutants, %zu parsed, %zu wgrt::Error\n", runs, rendered, errors);
  EXPECT_GT(runs, 1000u);
  EXPECT_GT(rendered, 0u);
  EXPECT_GT(errors, 0u);
}

}  // namespace
}  // namespace wgrt
