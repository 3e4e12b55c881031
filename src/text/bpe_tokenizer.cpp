#include "text/bpe_tokenizer.h"

#include <fmt/format.h>

#include <array>

#include <wgrt/error.h>

#include "text/greedy_merge.h"
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

BpeTokenizer::BpeTokenizer(TokenizerSpec spec)
    : SpecTokenizer(spec, "bpe tokenizer"),
      pre_(PreTokenizer::from_name(spec.pre)),
      ignore_merges_(PreTokenizer::ignores_merges(spec.pre)) {
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
  std::vector<Span> syms;
  for (char c : word) {
    const std::string& ch = table().to_char[static_cast<unsigned char>(c)];
    syms.push_back({static_cast<uint32_t>(mapped.size()), static_cast<uint32_t>(mapped.size() + ch.size())});
    mapped += ch;
  }
  if (ignore_merges_) {
    const int32_t id = vocab_.find(mapped);
    if (id >= 0) {
      out.push_back(id);
      return;
    }
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
    for (std::size_t i = 0; i < t.size();) {
      const std::size_t n = std::min(utf8_seq_len(static_cast<unsigned char>(t[i])), t.size() - i);
      const int32_t cid = vocab_.find(t.substr(i, n));
      if (cid >= 0) out.push_back(cid);
      else if (vocab_.unk() >= 0) out.push_back(vocab_.unk());
      i += n;
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
    for (auto [off, len] : pre_.split(f.text)) encode_word(f.text.substr(off, len), ids);
  }
  return ids;
}

std::string BpeTokenizer::token_bytes(int32_t id) const {
  const std::string& p = piece(id);
  const TokenType t = vocab_.type(id);
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
