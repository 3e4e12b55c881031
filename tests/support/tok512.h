// Test support for the text layer: a tiny llama2.c tokenizer.bin reader, a tiny reader of the tokenizer.ggml.*
// metadata of a GGUF file (independent of src/formats), and a literal O(n^2) transcription of llama2.c run.c's
// encode loop used as the reference for the O(n log n) tokenizers.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.h"

namespace wgrt::test {

// llama2.c tokenizer.bin: int32 max_token_length, then per token: float32 score, int32 len, len bytes.
// `count` tokens are read (the file does not store the count; run.c takes it from the checkpoint), or all of
// them when count < 0. Throws FormatError for a truncated/corrupt file.
struct Tok512 {
  int32_t max_token_length = 0;
  std::vector<std::string> pieces;
  std::vector<float> scores;
};
Tok512 read_llama2c_tokenizer(const std::string& path, int count = -1);

// The tokenizer.ggml.* keys of a GGUF v2/v3 file, as a TokenizerSpec (only the keys present are set).
// Throws FormatError for a corrupt file.
text::TokenizerSpec read_gguf_tokenizer_spec(const std::string& path);

// run.c encode, transcribed literally (rescan for the best pair after every merge). Ids 3..258 are bytes.
std::vector<int32_t> reference_run_c_encode(const std::vector<std::string>& pieces, const std::vector<float>& scores,
                                            std::string_view text, bool bos);

}  // namespace wgrt::test
