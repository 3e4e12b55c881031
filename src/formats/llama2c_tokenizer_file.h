// Reader for llama2.c's tokenizer file (tokenizer.bin / tok512.bin as written by llama2.c tokenizer.py and
// read by run.c build_tokenizer): int32 max_token_length, then per token: float32 score, int32 len, len bytes
// (no terminator). The file does not store the vocabulary size: pass the model's vocab_size to read exactly
// that many tokens (trailing bytes are then an error), or 0 to read tokens until the end of the file.
//
// Validation (FormatError naming the file and token index): max_token_length in 1..65536; every len in
// 0..max_token_length; every score finite; truncation; at least one token; at most 4194304 tokens.
// Only parsing: the BPE encode/decode algorithm lives in src/text.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace wgrt {

struct Llama2cTokenizerFile {
  int32_t max_token_length = 0;
  std::vector<std::string> pieces;  // raw bytes of each token (e.g. "<s>", " the", "<0x0A>")
  std::vector<float> scores;        // same length as pieces

  static Llama2cTokenizerFile read(const std::string& path, int32_t vocab_size = 0);
  static Llama2cTokenizerFile parse(std::span<const uint8_t> bytes, int32_t vocab_size = 0,
                                    const std::string& name = "<memory>");
};

}  // namespace wgrt
