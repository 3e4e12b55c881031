#include "formats/llama2c_tokenizer_file.h"

#include <algorithm>
#include <cmath>
#include <wgrt/error.h>

#include "util/byte_reader.h"
#include "util/file_bytes.h"
#include "util/printable.h"

namespace wgrt {

Llama2cTokenizerFile Llama2cTokenizerFile::read(const std::string& path, int32_t vocab_size) {
  const FileBytes f = FileBytes::open(path);
  Llama2cTokenizerFile t;
  f.parse_checked([&] { t = parse(f.bytes(), vocab_size, path); });
  return t;
}

Llama2cTokenizerFile Llama2cTokenizerFile::parse(std::span<const uint8_t> bytes, int32_t vocab_size,
                                                 const std::string& name) {
  constexpr int32_t kMaxVocab = 1 << 22;
  const std::string ctx = "llama2.c tokenizer '" + printable(name, 300) + "'";
  if (vocab_size < 0 || vocab_size > kMaxVocab)
    throw InvalidArgument(ctx + ": vocab_size " + std::to_string(vocab_size) + " out of range");
  ByteReader r(bytes, ctx);
  Llama2cTokenizerFile t;
  t.max_token_length = r.read<int32_t>("max_token_length");
  if (t.max_token_length < 1 || t.max_token_length > 65536)
    throw FormatError(ctx + ": max_token_length " + std::to_string(t.max_token_length) + " is outside 1..65536");
  // Each token takes at least 8 bytes: bound the reservation by the file size.
  const size_t cap = vocab_size > 0 ? static_cast<size_t>(vocab_size) : r.remaining() / 8;
  t.pieces.reserve(std::min(cap, r.remaining() / 8));
  t.scores.reserve(std::min(cap, r.remaining() / 8));
  for (int64_t i = 0; vocab_size > 0 ? i < vocab_size : r.remaining() > 0; ++i) {
    if (i >= kMaxVocab) throw FormatError(ctx + ": more than " + std::to_string(kMaxVocab) + " tokens");
    const std::string where = "token " + std::to_string(i);
    float score = r.read<float>(where + " score");
    int32_t len = r.read<int32_t>(where + " length");
    if (!std::isfinite(score)) throw FormatError(ctx + ": " + where + " has a non-finite score");
    if (len < 0 || len > t.max_token_length)
      throw FormatError(ctx + ": " + where + " length " + std::to_string(len) + " is outside 0..max_token_length " +
                        std::to_string(t.max_token_length));
    t.pieces.push_back(r.read_string(static_cast<uint64_t>(len), where + " bytes"));
    t.scores.push_back(score);
  }
  if (t.pieces.empty()) throw FormatError(ctx + ": no tokens");
  if (r.remaining() != 0)
    throw FormatError(ctx + ": " + std::to_string(r.remaining()) + " trailing bytes after " +
                      std::to_string(t.pieces.size()) + " tokens");
  return t;
}

}  // namespace wgrt
