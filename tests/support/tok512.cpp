#include "support/tok512.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include <wgrt/error.h>

namespace wgrt::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(fmt::format("{}: cannot open", path));
  return std::string(std::istreambuf_iterator<char>(f), {});
}

struct Cursor {
  const std::string& data;
  const std::string& path;
  std::size_t pos = 0;
  void need(std::size_t n) {
    if (n > data.size() - pos) throw FormatError(fmt::format("{}: truncated at byte {}", path, pos));
  }
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string bytes(uint64_t n) {
    if (n > (1u << 20)) throw FormatError(fmt::format("{}: string of {} bytes at byte {}", path, n, pos));
    need(n);
    std::string s = data.substr(pos, n);
    pos += n;
    return s;
  }
};

}  // namespace

Tok512 read_llama2c_tokenizer(const std::string& path, int count) {
  const std::string data = slurp(path);
  Cursor c{data, path};
  Tok512 t;
  t.max_token_length = c.get<int32_t>();
  while (count < 0 ? c.pos < data.size() : static_cast<int>(t.pieces.size()) < count) {
    t.scores.push_back(c.get<float>());
    const int32_t len = c.get<int32_t>();
    if (len < 0) throw FormatError(fmt::format("{}: negative piece length {}", path, len));
    t.pieces.push_back(c.bytes(static_cast<uint64_t>(len)));
  }
  return t;
}

text::TokenizerSpec read_gguf_tokenizer_spec(const std::string& path) {
  const std::string data = slurp(path);
  Cursor c{data, path};
  if (c.bytes(4) != "GGUF") throw FormatError(fmt::format("{}: not a GGUF file", path));
  const uint32_t version = c.get<uint32_t>();
  if (version != 2 && version != 3) throw FormatError(fmt::format("{}: GGUF version {}", path, version));
  c.get<uint64_t>();  // tensor count
  const uint64_t nkv = c.get<uint64_t>();
  if (nkv > 100000) throw FormatError(fmt::format("{}: {} metadata keys", path, nkv));
  text::TokenizerSpec spec;
  auto str = [&] { return c.bytes(c.get<uint64_t>()); };
  // Scalar of GGUF type t as int64 / double (only the numeric types and bool).
  auto scalar = [&](uint32_t t) -> double {
    switch (t) {
      case 0: return c.get<uint8_t>();
      case 1: return c.get<int8_t>();
      case 2: return c.get<uint16_t>();
      case 3: return c.get<int16_t>();
      case 4: return c.get<uint32_t>();
      case 5: return c.get<int32_t>();
      case 6: return c.get<float>();
      case 7: return c.get<uint8_t>();
      case 10: return static_cast<double>(c.get<uint64_t>());
      case 11: return static_cast<double>(c.get<int64_t>());
      case 12: return c.get<double>();
      default: throw FormatError(fmt::format("{}: bad value type {}", path, t));
    }
  };
  for (uint64_t k = 0; k < nkv; ++k) {
    const std::string key = str();
    const uint32_t type = c.get<uint32_t>();
    if (type == 8) {
      const std::string v = str();
      if (key == "tokenizer.ggml.model") spec.model = v;
      if (key == "tokenizer.ggml.pre") spec.pre = v;
    } else if (type == 9) {
      const uint32_t et = c.get<uint32_t>();
      const uint64_t n = c.get<uint64_t>();
      if (n > (1u << 24)) throw FormatError(fmt::format("{}: array '{}' of {} items", path, key, n));
      for (uint64_t i = 0; i < n; ++i) {
        if (et == 8) {
          std::string s = str();
          if (key == "tokenizer.ggml.tokens") spec.tokens.push_back(std::move(s));
          if (key == "tokenizer.ggml.merges") spec.merges.push_back(std::move(s));
        } else {
          const double v = scalar(et);
          if (key == "tokenizer.ggml.scores") spec.scores.push_back(static_cast<float>(v));
          if (key == "tokenizer.ggml.token_type") spec.token_types.push_back(static_cast<int32_t>(v));
        }
      }
    } else {
      const double v = scalar(type);
      if (key == "tokenizer.ggml.bos_token_id") spec.bos_id = static_cast<int32_t>(v);
      if (key == "tokenizer.ggml.eos_token_id") spec.eos_id = static_cast<int32_t>(v);
      if (key == "tokenizer.ggml.unknown_token_id") spec.unk_id = static_cast<int32_t>(v);
      if (key == "tokenizer.ggml.add_bos_token") spec.add_bos = v != 0;
      if (key == "tokenizer.ggml.add_space_prefix") spec.add_space_prefix = v != 0;
    }
  }
  return spec;
}

std::vector<int32_t> reference_run_c_encode(const std::vector<std::string>& pieces, const std::vector<float>& scores,
                                            std::string_view text, bool bos) {
  auto lookup = [&](const std::string& s) -> int {
    for (std::size_t i = 0; i < pieces.size(); ++i) if (pieces[i] == s) return static_cast<int>(i);
    return -1;
  };
  std::vector<int32_t> tokens;
  if (bos) tokens.push_back(1);
  if (!text.empty()) tokens.push_back(lookup(" "));
  std::string buf;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if ((ch & 0xC0) != 0x80) buf.clear();
    buf.push_back(static_cast<char>(ch));
    if (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80 && buf.size() < 4) continue;
    const int id = lookup(buf);
    if (id != -1) {
      tokens.push_back(id);
    } else {
      for (char b : buf) tokens.push_back(static_cast<unsigned char>(b) + 3);
    }
    buf.clear();
  }
  while (true) {
    float best_score = -1e10f;
    int best_id = -1, best_idx = -1;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      const int id = lookup(pieces[static_cast<std::size_t>(tokens[i])] + pieces[static_cast<std::size_t>(tokens[i + 1])]);
      if (id != -1 && scores[static_cast<std::size_t>(id)] > best_score) {
        best_score = scores[static_cast<std::size_t>(id)];
        best_id = id;
        best_idx = static_cast<int>(i);
      }
    }
    if (best_idx == -1) break;
    tokens[static_cast<std::size_t>(best_idx)] = best_id;
    tokens.erase(tokens.begin() + best_idx + 1);
  }
  return tokens;
}

}  // namespace wgrt::test
