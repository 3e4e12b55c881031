// The tokenizer of a model: the vocabulary embedded in a GGUF file (tokenizer.ggml.*), or a llama2.c
// tokenizer file for llama2.c checkpoints. A tokenizer whose vocabulary size differs from the model's is a
// FormatError ("wrong tokenizer for the model").
#pragma once
#include <memory>
#include <string>

#include "formats/gguf.h"
#include "formats/model_weights.h"
#include "text/tokenizer.h"

namespace wgrt::models {

// The vocabulary embedded in a GGUF file (tokenizer.ggml.*, general.name/architecture); works on vocab-only files
// (no tensors). GGUF keys -> TokenizerSpec as text/tokenizer.h lists them, with llama.cpp's defaults where a key
// is absent (add_bos per model and pre; Gemma-4 always adds BOS; "bert" takes [CLS] as BOS) and llama.cpp's
// token-type corrections by text (text/special_overrides.h). parse_special: split
// Control/Unknown token texts out of the input (UserDefined ones always are). Throws FormatError when the file
// has no tokenizer or a key has the wrong type, Unsupported naming an unsupported model or pre, InvalidArgument
// for an inconsistent vocabulary (a BPE vocabulary without merges included). Any thread.
std::unique_ptr<text::Tokenizer> tokenizer_from_gguf(const GgufFile& f, bool parse_special = true);
// The spec tokenizer_from_gguf builds from (same keys, defaults and errors, less make_tokenizer's).
text::TokenizerSpec tokenizer_spec_from_gguf(const GgufFile& f, bool parse_special = true);

std::unique_ptr<text::Tokenizer> load_tokenizer(const WeightSource& w, const std::string& tokenizer_path);

}  // namespace wgrt::models
