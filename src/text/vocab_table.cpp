#include "text/vocab_table.h"

#include <fmt/format.h>

#include <algorithm>

#include <wgrt/error.h>

namespace wgrt::text {

VocabTable::VocabTable(std::vector<std::string> tokens, std::vector<int32_t> token_types, int32_t bos,
                       int32_t eos, int32_t unk, bool parse_special, const char* who)
    : tokens_(std::move(tokens)), bos_(bos), eos_(eos), unk_(unk) {
  if (tokens_.empty() || tokens_.size() > kMaxTokens) {
    throw InvalidArgument(fmt::format("{}: token count {} outside [1, {}]", who, tokens_.size(), kMaxTokens));
  }
  if (!token_types.empty() && token_types.size() != tokens_.size()) {
    throw InvalidArgument(fmt::format("{}: {} token types for {} tokens", who, token_types.size(), tokens_.size()));
  }
  types_.assign(tokens_.size(), TokenType::Normal);
  for (std::size_t i = 0; i < token_types.size(); ++i) {
    if (token_types[i] < 0 || token_types[i] > 6) {
      throw InvalidArgument(fmt::format("{}: token {} has invalid token type {}", who, i, token_types[i]));
    }
    types_[i] = static_cast<TokenType>(token_types[i]);
  }
  const int32_t n = size();
  for (auto [name, id] : {std::pair{"bos_token_id", bos}, {"eos_token_id", eos}, {"unknown_token_id", unk}}) {
    if (id < -1 || id >= n) throw InvalidArgument(fmt::format("{}: {} {} out of range [0, {})", who, name, id, n));
  }
  index_.reserve(tokens_.size());
  for (int32_t i = 0; i < n; ++i) index_.emplace(std::string_view(tokens_[static_cast<std::size_t>(i)]), i);

  special_by_byte_.resize(256);
  for (int32_t i = 0; i < n; ++i) {
    const TokenType t = type(i);
    const bool special = t == TokenType::UserDefined ||
                         (parse_special && (t == TokenType::Control || t == TokenType::Unknown));
    if (special && !text(i).empty()) special_by_byte_[static_cast<unsigned char>(text(i)[0])].push_back(i);
  }
  for (auto& list : special_by_byte_) {
    std::stable_sort(list.begin(), list.end(),
                     [&](int32_t a, int32_t b) { return text(a).size() > text(b).size(); });
  }
}

int32_t VocabTable::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? -1 : it->second;
}

std::vector<VocabTable::Fragment> VocabTable::split_special(std::string_view text) const {
  std::vector<Fragment> out;
  std::size_t raw_start = 0, pos = 0;
  while (pos < text.size()) {
    int32_t hit = -1;
    for (int32_t id : special_by_byte_[static_cast<unsigned char>(text[pos])]) {
      if (text.substr(pos, this->text(id).size()) == this->text(id)) {
        hit = id;
        break;
      }
    }
    if (hit < 0) {
      ++pos;
      continue;
    }
    if (pos > raw_start) out.push_back({-1, text.substr(raw_start, pos - raw_start)});
    out.push_back({hit, this->text(hit)});
    pos += this->text(hit).size();
    raw_start = pos;
  }
  if (pos > raw_start) out.push_back({-1, text.substr(raw_start, pos - raw_start)});
  return out;
}

}  // namespace wgrt::text
