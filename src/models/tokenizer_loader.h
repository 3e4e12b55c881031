// The tokenizer of a model: the vocabulary embedded in a GGUF file (tokenizer.ggml.*), or a llama2.c
// tokenizer file for llama2.c checkpoints. A tokenizer whose vocabulary size differs from the model's is a
// FormatError ("wrong tokenizer for the model").
#pragma once
#include <memory>
#include <string>

#include "formats/model_weights.h"
#include "text/tokenizer.h"

namespace wgrt {
class GgufFile;
}

namespace wgrt::models {

std::unique_ptr<text::Tokenizer> load_tokenizer(const WeightSource& w, const std::string& tokenizer_path);

// The tokenizer.ggml.* keys of `f` as a TokenizerSpec, then text::make_tokenizer. FormatError for missing or
// mistyped keys (a gpt2 vocabulary without merges included), Unsupported / InvalidArgument as make_tokenizer.
std::unique_ptr<text::Tokenizer> tokenizer_from_gguf(const GgufFile& f);

}  // namespace wgrt::models
