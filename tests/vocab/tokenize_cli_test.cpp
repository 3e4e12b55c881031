// `wgrt tokenize` on llama.cpp's vocab-only GGUF files: the ids equal llama.cpp's test vectors (the same oracle
// as vocab_vectors_test.cpp), both output forms, and one-line errors for bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/run_cli.h"
#include "vocab_files.h"

namespace wgrt {
namespace {

namespace fs = std::filesystem;
using test::expect_clean_error;
using test::run_cli;

std::string vocab(const std::string& name) { return test::vocab_path(name); }

TEST(TokenizeCli, IdsMatchLlamaCppOnVocabOnlyFiles) {
  // From ggml-vocab-llama-bpe.gguf.out ("Hello world" -> 9906 1917) and ggml-vocab-bert-bge.gguf.out
  // (" Hello World!" -> 7592 2088 999); --no-bos as the vectors were made without special tokens.
  auto r = run_cli("tokenize -m " + vocab("llama-bpe") + " -p 'Hello world' --ids --no-bos");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[9906, 1917]\n");
  r = run_cli("tokenize -m " + vocab("bert-bge") + " -p ' Hello World!' --ids --no-bos");
  EXPECT_EQ(r.out, "[7592, 2088, 999]\n") << r.err;
  // Default: the vocabulary's BOS (llama-bpe: <|begin_of_text|> 128000) and one "id -> 'piece'" line per token.
  r = run_cli("tokenize -m " + vocab("llama-bpe") + " -p 'Hello world'");
  EXPECT_EQ(r.out, "128000 -> '<|begin_of_text|>'\n  9906 -> 'Hello'\n  1917 -> ' world'\n") << r.err;
  // --special: control-token texts become their ids; without it they are text.
  r = run_cli("tokenize -m " + vocab("llama-bpe") + " -p '<|begin_of_text|>' --ids --no-bos --special");
  EXPECT_EQ(r.out, "[128000]\n") << r.err;
  r = run_cli("tokenize -m " + vocab("llama-bpe") + " -p '<|begin_of_text|>' --ids --no-bos");
  EXPECT_NE(r.out, "[128000]\n");
  // -f reads the file's bytes.
  const fs::path f = test::cli_test_dir() / "text.txt";
  std::ofstream(f) << "Hello world";
  r = run_cli("tokenize -m " + vocab("llama-bpe") + " -f " + f.string() + " --ids --no-bos");
  EXPECT_EQ(r.out, "[9906, 1917]\n") << r.err;
}

TEST(TokenizeCli, BadInputIsOneLineError) {
  expect_clean_error(run_cli("tokenize -m " + vocab("nomic-bert-moe") + " -p x"), "tokenizer.ggml.model 't5'");
  expect_clean_error(run_cli("tokenize -m " + vocab("llama-bpe")), "-p TEXT or -f FILE");
  expect_clean_error(run_cli("tokenize -m /nonexistent.gguf -p x"), "/nonexistent.gguf");
  expect_clean_error(run_cli("tokenize -m " + vocab("llama-bpe") + " -f /nonexistent.txt"), "/nonexistent.txt");
  expect_clean_error(run_cli("tokenize -m " + vocab("llama-bpe") + " -p a -f b"), "excludes");
  // A vocab-only file given to generate says what it is and which command reads it.
  expect_clean_error(run_cli("generate -m " + vocab("bert-bge") + " -p x -n 1"), "wgrt tokenize");
}

}  // namespace
}  // namespace wgrt
