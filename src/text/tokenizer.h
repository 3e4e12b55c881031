// Tokenizer interface shared by the llama2.c, SentencePiece-style ("llama"), byte-level BPE ("gpt2", "gemma4")
// and WordPiece ("bert") tokenizers, plus TokenizerSpec: the plain-data description of a vocabulary, field for field the GGUF
// `tokenizer.ggml.*` metadata, so a GGUF factory only copies keys into a spec and calls make_tokenizer().
//
// Token ids are int32_t in [0, vocab_size()). Text in and out is raw bytes (UTF-8 expected but not required;
// a token may stand for part of a UTF-8 character: stream decoded bytes through Utf8Stream, utf8_stream.h).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::text {

// Values of GGUF tokenizer.ggml.token_type (llama.cpp's llama_token_type).
enum class TokenType : int32_t {
  Undefined = 0,
  Normal = 1,
  Unknown = 2,
  Control = 3,      // BOS/EOS/<|eot_id|>...: not text; decode_piece() gives "" for them.
  UserDefined = 4,  // added tokens that stand for their own text.
  Unused = 5,
  Byte = 6,         // "<0xHH>": stands for one raw byte.
};

// A vocabulary as plain data. GGUF key -> field:
//   tokenizer.ggml.model               -> model ("llama": SpmTokenizer, "gpt2"/"gemma4": BpeTokenizer,
//                                         "bert": WpmTokenizer)
//   tokenizer.ggml.tokens              -> tokens        (string array; required)
//   tokenizer.ggml.scores              -> scores        (float32 array; required for "llama", ignored otherwise)
//   tokenizer.ggml.token_type          -> token_types   (int32 array of TokenType; empty = all Normal)
//   tokenizer.ggml.merges              -> merges        (string array "left right"; required, non-empty, for
//                                         "gpt2"/"gemma4")
//   tokenizer.ggml.bos_token_id        -> bos_id        (absent: -1 = none)
//   tokenizer.ggml.eos_token_id        -> eos_id        (absent: -1 = none)
//   tokenizer.ggml.unknown_token_id    -> unk_id        (absent: -1 = none)
//   tokenizer.ggml.add_bos_token       -> add_bos       (absent: the loader uses llama.cpp's default: true for
//                                         "llama"/"bert", per pre name for "gpt2"; "gemma4" always true)
//   tokenizer.ggml.add_space_prefix    -> add_space_prefix (absent: true; "llama" only)
//   tokenizer.ggml.pre                 -> pre           (absent: "default"; BPE only; see pre_table.h)
//   tokenizer.ggml.seperator_token_id  -> sep_id        (absent: -1; "bert": [SEP], appended with add_bos)
//   tokenizer.ggml.normalizer.lowercase / .strip_accents -> lowercase / strip_accents ("bert"; absent: true /
//                                         lowercase)
//   general.name, general.architecture -> general_name, general_arch (llama.cpp keys per-model special-token
//                                         strip rules on them: VocabTable::apply_strip_rules)
// For "bert", bos_id is tokenizer.ggml.cls_token_id when bos_token_id is absent (the loader does that).
// Not from GGUF: parse_special (split control/unknown token texts out of the input before tokenizing, as
// llama.cpp's parse_special=true; user-defined ones are always split; default true).
// Not supported: tokenizer.ggml.add_eos_token (llama.cpp appends EOS with add_special when it is true; wgrt
// never appends one except [SEP] for "bert").
struct TokenizerSpec {
  std::string model;
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int32_t> token_types;
  std::vector<std::string> merges;
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  int32_t unk_id = -1;
  bool add_bos = true;
  bool add_space_prefix = true;
  std::string pre = "default";
  int32_t sep_id = -1;
  bool lowercase = true;
  bool strip_accents = true;
  std::string general_name;
  std::string general_arch;
  bool parse_special = true;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Token ids for `text`, preceded by bos_id() when add_bos (throws InvalidArgument if there is no BOS).
  // Never throws on any byte content (invalid UTF-8 included).
  virtual std::vector<int32_t> encode(std::string_view text, bool add_bos) const = 0;

  // The raw bytes token `id` stands for ("▁"/GPT-2 byte characters mapped back, "<0xHH>" -> that byte; control
  // and user-defined tokens -> their text). Throws InvalidArgument when id is out of range.
  virtual std::string token_bytes(int32_t id) const = 0;

  // Bytes to print when `id` follows `prev` (prev = -1 at the start of a stream): token_bytes(id), except ""
  // for control tokens and, where the tokenizer adds a dummy prefix space, the leading space is dropped after
  // BOS (llama2.c run.c decode). Throws InvalidArgument when id (or prev, unless -1) is out of range.
  virtual std::string decode_piece(int32_t prev, int32_t id) const = 0;

  // The vocabulary entry text of `id`, as stored (e.g. "▁the", "Ġthe", "<0x0A>"). Throws InvalidArgument.
  virtual const std::string& piece(int32_t id) const = 0;
  virtual TokenType token_type(int32_t id) const = 0;

  virtual int32_t vocab_size() const = 0;
  virtual int32_t bos_id() const = 0;  // -1 when none
  virtual int32_t eos_id() const = 0;  // -1 when none
  // Whether the vocabulary asks for BOS at the start of a prompt (GGUF add_bos_token).
  virtual bool add_bos_by_default() const = 0;

  // token_type(id) == Control. Throws InvalidArgument when id is out of range.
  bool is_control(int32_t id) const { return token_type(id) == TokenType::Control; }
  // Concatenation of decode_piece(prev, id) over `ids` (prev starts at -1). Bytes, not necessarily valid UTF-8.
  std::string decode(std::span<const int32_t> ids) const;

 protected:
  // Throws InvalidArgument naming `what` unless 0 <= id < vocab_size().
  void check_id(int32_t id, const char* what) const;
};

// Builds the tokenizer `spec.model` names: "llama" -> SpmTokenizer, "gpt2"/"gemma4" -> BpeTokenizer, "bert" ->
// WpmTokenizer. Throws Unsupported naming the model for others (llama.cpp's "t5" (UGM), "rwkv", "plamo2",
// "hybriddna", "whitespace", "none"/"no_vocab", or unknown), or naming an unsupported pre;
// InvalidArgument for an inconsistent spec.
std::unique_ptr<Tokenizer> make_tokenizer(TokenizerSpec spec);

}  // namespace wgrt::text
