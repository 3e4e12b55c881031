#include "text/bpe_tokenizer.h"

#include <fmt/format.h>

#include <array>

#include <wgrt/error.h>

#include "text/greedy_merge.h"
#include "text/pre_table.h"
#include "text/unicode_props.h"
#include "text/utf8.h"
#include "util/printable.h"

namespace wgrt::text {
namespace {

struct ByteTable {
  std::array<std::string, 256> to_char;
  std::array<uint32_t, 256> to_cp;
  std::array<int, 256 + 68> from_cp;  // code point -> byte, -1 if not a table character
  ByteTable() {
    from_cp.fill(-1);
    uint32_t extra = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool self = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      to_cp[b] = self ? b : extra++;
      append_utf8(to_char[b], to_cp[b]);
      from_cp[to_cp[b]] = static_cast<int>(b);
    }
  }
};
const ByteTable& table() {
  static const ByteTable t;
  return t;
}

struct Span {
  uint32_t begin, end;
};

}  // namespace

const std::string& BpeTokenizer::byte_to_unicode(unsigned char b) { return table().to_char[b]; }

int BpeTokenizer::unicode_to_byte(uint32_t cp) {
  return cp < table().from_cp.size() ? table().from_cp[cp] : -1;
}

namespace {
PreSpec pre_spec_of(const TokenizerSpec& spec) {
  // llama.cpp's "gemma4" model always uses the gemma4 pre-tokenizer, whatever tokenizer.ggml.pre says.
  auto p = find_pre(spec.model == "gemma4" ? std::string_view("gemma4") : std::string_view(spec.pre));
  if (!p) throw Unsupported(PreTokenizer::unsupported_pre_message(spec.pre));
  return std::move(*p);
}
}  // namespace

BpeTokenizer::BpeTokenizer(TokenizerSpec spec) : BpeTokenizer(spec, pre_spec_of(spec)) {}

BpeTokenizer::BpeTokenizer(TokenizerSpec& spec, PreSpec pre)
    : SpecTokenizer(spec, "bpe tokenizer"),
      pre_(pre.regexes),
      ignore_merges_(pre.ignore_merges),
      byte_encode_(pre.byte_encode),
      escape_spaces_(pre.escape_spaces),
      newline_words_(pre.kind == "GEMMA4") {
  if (spec.merges.empty()) {
    throw InvalidArgument("bpe tokenizer: the vocabulary has no merges (tokenizer.ggml.merges); a BPE tokenizer "
                          "needs them: the file is incomplete, re-convert the model");
  }
  if (!byte_encode_) {
    for (int b = 0; b < 256; ++b) byte_ids_[b] = vocab_.find(fmt::format("<0x{:02X}>", b));
  }
  if (spec.merges.size() > VocabTable::kMaxTokens) {
    throw InvalidArgument(fmt::format("bpe tokenizer: {} merges (more than {})", spec.merges.size(),
                                      VocabTable::kMaxTokens));
  }
  ranks_.reserve(spec.merges.size());
  for (std::size_t i = 0; i < spec.merges.size(); ++i) {
    const std::string& m = spec.merges[i];
    const std::size_t sp = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
    if (sp == std::string::npos || sp + 1 >= m.size()) {
      throw InvalidArgument(fmt::format("bpe tokenizer: merge {} '{}' is not 'left right'", i, printable(m)));
    }
    ranks_.emplace(m, static_cast<int32_t>(i));  // first occurrence keeps the best rank
  }
}

void BpeTokenizer::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  std::string mapped;
  if (byte_encode_) {
    for (char c : word) mapped += table().to_char[static_cast<unsigned char>(c)];
  } else {
    mapped.assign(word);
  }
  // Whole-word shortcuts: ignore_merges (Llama-3 and others), and Gemma-4's runs of newlines.
  if (ignore_merges_ || (newline_words_ && mapped.find_first_not_of('\n') == std::string::npos)) {
    const int32_t id = vocab_.find(mapped);
    if (id >= 0) {
      out.push_back(id);
      return;
    }
  }
  std::vector<Span> syms;
  for (std::size_t i = 0; i < mapped.size();) {
    const std::size_t n = std::min(utf8_seq_len(static_cast<unsigned char>(mapped[i])), mapped.size() - i);
    syms.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(i + n)});
    i += n;
  }
  const std::string_view sv(mapped);
  std::string key;
  auto try_merge = [&](const Span& a, const Span& b) -> std::optional<std::pair<double, Span>> {
    key.assign(sv.substr(a.begin, a.end - a.begin));
    key += ' ';
    key += sv.substr(b.begin, b.end - b.begin);
    auto it = ranks_.find(key);
    if (it == ranks_.end()) return std::nullopt;
    return std::pair{static_cast<double>(it->second), Span{a.begin, b.end}};
  };
  for (const Span& s : greedy_merge(std::move(syms), try_merge)) {
    const std::string_view t = sv.substr(s.begin, s.end - s.begin);
    const int32_t id = vocab_.find(t);
    if (id >= 0) {
      out.push_back(id);
      continue;
    }
    // Byte fallback, one byte at a time (llama.cpp): the single-byte token, or "<0xHH>" without byte encoding.
    for (char c : t) {
      const int32_t bid = byte_encode_ ? vocab_.find(std::string_view(&c, 1)) : byte_ids_[static_cast<unsigned char>(c)];
      if (bid >= 0) out.push_back(bid);
    }
  }
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, bool add_bos) const {
  if (text.size() > UINT32_MAX / 2) throw LimitError("bpe tokenizer: input longer than 2 GiB");
  std::vector<int32_t> ids;
  if (add_bos) {
    if (vocab_.bos() < 0) throw InvalidArgument("bpe tokenizer: add_bos requested but the vocabulary has no BOS");
    ids.push_back(vocab_.bos());
  }
  for (const auto& f : vocab_.split_special(text)) {
    if (f.token >= 0) {
      ids.push_back(f.token);
      continue;
    }
    const std::string clean = reencode_utf8_lossy(escape_spaces_ ? escape_spaces(f.text) : std::string(f.text));
    for (auto [off, len] : pre_.split(clean)) encode_word(std::string_view(clean).substr(off, len), ids);
  }
  return ids;
}

std::string BpeTokenizer::token_bytes(int32_t id) const {
  const std::string& p = piece(id);
  const TokenType t = vocab_.type(id);
  if (!byte_encode_) {  // raw UTF-8 pieces, "▁" for spaces when escape_spaces, "<0xHH>" byte tokens
    unsigned char byte = 0;
    if (t == TokenType::Byte && parse_byte_piece(p, &byte)) return std::string(1, static_cast<char>(byte));
    if (!escape_spaces_ || (t != TokenType::Normal && t != TokenType::Undefined && t != TokenType::Unused)) return p;
    return unescape_spaces(p);
  }
  if (t != TokenType::Normal && t != TokenType::Undefined && t != TokenType::Unused) return p;
  std::string out;
  for (std::size_t i = 0; i < p.size();) {
    const auto c0 = static_cast<unsigned char>(p[i]);
    std::size_t n = std::min(utf8_seq_len(c0), p.size() - i);
    uint32_t cp = n == 1 ? c0 : (c0 & (0xFF >> (n + 1)));
    bool ok = n > 1 || c0 < 0x80;
    for (std::size_t k = 1; k < n; ++k) {
      const auto ck = static_cast<unsigned char>(p[i + k]);
      ok = ok && (ck & 0xC0) == 0x80;
      cp = (cp << 6) | (ck & 0x3F);
    }
    const int b = ok ? unicode_to_byte(cp) : -1;
    if (b >= 0) out.push_back(static_cast<char>(b));
    else out.append(p, i, n);
    i += n;
  }
  return out;
}

std::string BpeTokenizer::decode_piece(int32_t prev, int32_t id) const {
  if (prev != -1) check_id(prev, "previous token id");
  if (is_control(id)) return {};
  return token_bytes(id);
}

}  // namespace wgrt::text
