#include "text/vocab_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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

  strip_.assign(tokens_.size(), 0);
  special_by_byte_.resize(256);
  for (int32_t i = 0; i < n; ++i) {
    if (is_special(i, parse_special) && !text(i).empty()) {
      special_by_byte_[static_cast<unsigned char>(text(i)[0])].push_back(i);
    }
  }
}

bool VocabTable::is_special(int32_t id, bool parse_special) const {
  const TokenType t = type(id);
  return t == TokenType::UserDefined || (parse_special && (t == TokenType::Control || t == TokenType::Unknown));
}

void VocabTable::apply_strip_rules(std::string_view general_name, std::string_view general_arch,
                                   std::string_view pre) {
  std::string name(general_name);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [](std::string_view s, std::initializer_list<std::string_view> subs) {
    for (auto sub : subs) if (s.find(sub) != std::string_view::npos) return true;
    return false;
  };
  auto set = [&](std::string_view tok, uint8_t bit, bool on) {
    const int32_t id = find(tok);
    if (id >= 0) strip_[static_cast<std::size_t>(id)] = on ? (strip_[id] | bit) : (strip_[id] & ~bit);
  };
  if (has(pre, {"jina-v2-de", "jina-v2-es", "jina-v2-code"}) || has(general_arch, {"nomic-bert-moe", "jina-bert-v3"})) {
    set("<mask>", kLstrip, true);
  } else if (has(name, {"phi-3", "phi3"})) {
    for (int32_t i = 0; i < size(); ++i) {
      const TokenType t = type(i);
      if (t == TokenType::Control || t == TokenType::UserDefined || t == TokenType::Unknown) strip_[i] |= kRstrip;
    }
    set("</s>", kRstrip, true);
    for (auto tok : {"<unk>", "<s>", "<|endoftext|>"}) set(tok, kRstrip, false);
  } else if (has(name, {"modern-bert"})) {
    set("[MASK]", kLstrip, true);
  }
}

int32_t VocabTable::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? -1 : it->second;
}

namespace {
bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

std::vector<VocabTable::Fragment> VocabTable::split_special(std::string_view text) const {
  // Which special tokens occur at all (one pass, candidates by first byte), longest text first, then by id.
  std::vector<int32_t> present;
  {
    std::vector<bool> seen(tokens_.size(), false);
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
      for (int32_t id : special_by_byte_[static_cast<unsigned char>(text[pos])]) {
        if (!seen[static_cast<std::size_t>(id)] && text.substr(pos, this->text(id).size()) == this->text(id)) {
          seen[static_cast<std::size_t>(id)] = true;
          present.push_back(id);
        }
      }
    }
    std::stable_sort(present.begin(), present.end(), [&](int32_t a, int32_t b) {
      return this->text(a).size() > this->text(b).size() || (this->text(a).size() == this->text(b).size() && a < b);
    });
  }
  struct Piece {
    int32_t token;
    std::size_t off, len;
  };
  std::vector<Piece> cur, next;
  if (!text.empty()) cur.push_back({-1, 0, text.size()});
  for (int32_t id : present) {
    const std::string& tok = this->text(id);
    const uint8_t strip = strip_[static_cast<std::size_t>(id)];
    next.clear();
    for (const Piece& p : cur) {
      if (p.token >= 0) {
        next.push_back(p);
        continue;
      }
      std::size_t base = p.off, len = p.len;
      while (len > 0) {
        const std::size_t m = text.substr(0, base + len).find(tok, base);
        if (m == std::string_view::npos) break;
        std::size_t left = m - base;
        if (strip & kLstrip) while (left > 0 && ascii_space(text[base + left - 1])) --left;
        if (left > 0) next.push_back({-1, base, left});
        next.push_back({id, m, tok.size()});
        std::size_t roff = m + tok.size(), rlen = base + len - roff;
        if (strip & kRstrip) {
          while (rlen > 0 && ascii_space(text[roff])) ++roff, --rlen;
        }
        base = roff;
        len = rlen;
      }
      if (len > 0) next.push_back({-1, base, len});
    }
    cur.swap(next);
  }
  std::vector<Fragment> out;
  out.reserve(cur.size());
  for (const Piece& p : cur) out.push_back({p.token, text.substr(p.off, p.len)});
  return out;
}

}  // namespace wgrt::text
