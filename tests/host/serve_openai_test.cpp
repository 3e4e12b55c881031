// The OpenAI request parser of wgrt serve (src/serve/openai.h): documented fields and ranges, and a mutation
// run over the committed corpus (tests/corpus/openai_request, the libFuzzer target's seeds): every mutant
// either parses within the documented ranges or is an ApiError 400, never anything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "serve/openai.h"
#include "support/paths.h"

using namespace wgrt::serve;

TEST(ServeOpenai, ParsesTheDocumentedFields) {
  ParsedRequest r = parse_request(R"({"prompt":"hi","max_tokens":5,"temperature":0,"top_k":3,"top_p":0.5,"min_p":0.1,
                                      "seed":9,"stop":["x",""],"stream":true,"stream_options":{"include_usage":true},
                                      "n":3,"repeat_penalty":1.25})", false);
  EXPECT_EQ(r.prompt, "hi");
  EXPECT_EQ(r.params.max_tokens, 5);
  EXPECT_EQ(r.params.temperature, 0.0f);
  EXPECT_EQ(r.params.top_k, 3);
  EXPECT_EQ(r.params.seed, 9u);
  EXPECT_EQ(r.params.stop, std::vector<std::string>{"x"});  // empty stop strings are dropped
  EXPECT_TRUE(r.stream && r.include_usage);
  EXPECT_EQ(r.n, 3);
  EXPECT_EQ(r.params.repetition_penalty, 1.25f);
  ParsedRequest c = parse_request(R"({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]})", true);
  ASSERT_EQ(c.messages.size(), 1u);
  EXPECT_EQ(c.messages[0].content, "ab");
  EXPECT_EQ(c.params.max_tokens, -1);
  EXPECT_EQ(c.params.temperature, 1.0f);  // OpenAI's default
  for (const char* bad : {"", "null", "{\"prompt\":\"x\",\"max_tokens\":1.5}", "{\"prompt\":\"x\",\"seed\":\"1\"}",
                          "{\"prompt\":\"x\",\"min_p\":2}", "{\"prompt\":[\"a\",\"b\"]}", "{\"prompt\":\"x\",\"n\":0}",
                          "{\"prompt\":\"x\",\"n\":17}", "{\"prompt\":\"x\",\"repeat_penalty\":0}"}) {
    try {
      parse_request(bad, false);
      ADD_FAILURE() << bad << " accepted";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 400) << bad;
    }
  }
  // Content parts whose "type" or "text" is not a string (the fuzzer's find: a numeric type escaped as
  // nlohmann's type_error instead of a 400).
  for (const char* bad : {R"({"messages":[{"role":"user","content":[{"type":333333,"text":"x"}]}]})",
                          R"({"messages":[{"role":"user","content":[{"type":null,"text":"x"}]}]})",
                          R"({"messages":[{"role":"user","content":[{"text":"x"}]}]})",
                          R"({"messages":[{"role":"user","content":[{"type":"text","text":7}]}]})"}) {
    try {
      parse_request(bad, true);
      ADD_FAILURE() << bad << " accepted";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 400) << bad;
      EXPECT_NE(std::string(e.what()).find("only text parts are supported"), std::string::npos) << e.what();
    }
  }
}

TEST(ServeOpenai, MutatedCorpusIsParsedOrRefusedWith400) {
  std::vector<std::string> seeds;
  for (const auto& e : std::filesystem::directory_iterator(wgrt::test::source_path("tests/corpus/openai_request"))) {
    std::ifstream f(e.path(), std::ios::binary);
    seeds.emplace_back((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
  ASSERT_GE(seeds.size(), 4u);
  std::mt19937 rng(5);
  int parsed = 0, refused = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string s = seeds[rng() % seeds.size()];
    for (int k = 0, n = 1 + int(rng() % 4); k < n && s.size() > 1; ++k) {
      const size_t at = 1 + rng() % (s.size() - 1);
      switch (rng() % 3) {
        case 0: s[at] = char(rng()); break;
        case 1: s.erase(at, 1 + rng() % 8); break;
        default: s.insert(at, std::string(1 + rng() % 3, "{}[]\",:0-e.9\\"[rng() % 13])); break;
      }
    }
    try {
      ParsedRequest r = parse_request(s.substr(1), s[0] % 2 == 0);
      EXPECT_TRUE(r.params.max_tokens == -1 || r.params.max_tokens >= 1);
      EXPECT_TRUE(r.params.top_p > 0 && r.params.top_p <= 1);
      EXPECT_TRUE(r.n >= 1 && r.n <= kMaxChoices);
      EXPECT_TRUE(r.params.repetition_penalty > 0 && r.params.repetition_penalty <= 10);
      ++parsed;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 400);
      ++refused;
    }
  }
  EXPECT_GT(parsed, 100);
  EXPECT_GT(refused, 100);
}
