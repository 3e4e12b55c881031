#include "text/spm_tokenizer.h"

#include <fmt/format.h>

#include <cmath>

#include <wgrt/error.h>

#include "text/greedy_merge.h"
#include "text/utf8.h"

namespace wgrt::text {
namespace {
constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581 LOWER ONE EIGHTH BLOCK

struct Span {
  uint32_t begin, end;
};
}  // namespace

SpmTokenizer::SpmTokenizer(TokenizerSpec spec)
    : SpecTokenizer(spec, "spm tokenizer"),
      scores_(std::move(spec.scores)),
      add_space_prefix_(spec.add_space_prefix) {
  if (scores_.size() != static_cast<std::size_t>(vocab_.size())) {
    throw InvalidArgument(
        fmt::format("spm tokenizer: {} scores for {} tokens (tokenizer.ggml.scores)", scores_.size(), vocab_.size()));
  }
  for (std::size_t i = 0; i < scores_.size(); ++i) {
    if (!std::isfinite(scores_[i])) throw InvalidArgument(fmt::format("spm tokenizer: token {} score is not finite", i));
  }
  for (int b = 0; b < 256; ++b) byte_ids_[b] = vocab_.find(fmt::format("<0x{:02X}>", b));
}

void SpmTokenizer::encode_raw(std::string_view text, bool prefix, std::vector<int32_t>& out) const {
  std::string s;
  s.reserve(text.size() + 3);
  auto push_char = [&](char c) {
    if (c == ' ') s += kSpace; else s.push_back(c);
  };
  if (prefix) push_char(' ');
  for (char c : text) push_char(c);
  if (s.size() > UINT32_MAX) throw LimitError("spm tokenizer: input longer than 4 GiB");

  std::vector<Span> syms;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = std::min(utf8_seq_len(static_cast<unsigned char>(s[i])), s.size() - i);
    syms.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(i + len)});
    i += len;
  }
  const std::string_view sv(s);
  auto try_merge = [&](const Span& a, const Span& b) -> std::optional<std::pair<double, Span>> {
    const int32_t id = vocab_.find(sv.substr(a.begin, b.end - a.begin));
    if (id < 0) return std::nullopt;
    return std::pair{-static_cast<double>(scores_[static_cast<std::size_t>(id)]), Span{a.begin, b.end}};
  };
  for (const Span& sp : greedy_merge(std::move(syms), try_merge)) {
    const std::string_view t = sv.substr(sp.begin, sp.end - sp.begin);
    const int32_t id = vocab_.find(t);
    if (id >= 0) {
      out.push_back(id);
      continue;
    }
    for (char c : t) {
      const int32_t b = byte_ids_[static_cast<unsigned char>(c)];
      if (b >= 0) out.push_back(b);
      else if (vocab_.unk() >= 0) out.push_back(vocab_.unk());
    }
  }
}

std::vector<int32_t> SpmTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int32_t> ids;
  if (add_bos) {
    if (vocab_.bos() < 0) throw InvalidArgument("spm tokenizer: add_bos requested but the vocabulary has no BOS");
    ids.push_back(vocab_.bos());
  }
  bool prev_special = true;
  for (const auto& f : vocab_.split_special(text)) {
    if (f.token >= 0) {
      ids.push_back(f.token);
      prev_special = true;
      continue;
    }
    // llama.cpp: the space prefix goes only before the first fragment and fragments following a special token.
    encode_raw(f.text, add_space_prefix_ && prev_special, ids);
    prev_special = false;
  }
  return ids;
}

std::string SpmTokenizer::token_bytes(int32_t id) const {
  const std::string& p = piece(id);
  const TokenType t = vocab_.type(id);
  unsigned char b = 0;
  if (t == TokenType::Byte && parse_byte_piece(p, &b)) return std::string(1, static_cast<char>(b));
  if (t != TokenType::Normal && t != TokenType::Unused && t != TokenType::Undefined) return p;
  return unescape_spaces(p);
}

std::string SpmTokenizer::decode_piece(int32_t prev, int32_t id) const {
  if (prev != -1) check_id(prev, "previous token id");
  if (is_control(id)) return {};
  std::string s = token_bytes(id);
  if (add_space_prefix_ && (prev == -1 || prev == vocab_.bos()) && vocab_.type(id) != TokenType::Byte &&
      !s.empty() && s[0] == ' ') {
    s.erase(0, 1);
  }
  return s;
}

}  // namespace wgrt::text
