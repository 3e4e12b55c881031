#include "text/llama2c_tokenizer.h"

#include <fmt/format.h>

#include <wgrt/error.h>

#include "text/greedy_merge.h"
#include "text/utf8.h"
#include "util/printable.h"

namespace wgrt::text {

Llama2cTokenizer::Llama2cTokenizer(std::vector<std::string> pieces, std::vector<float> scores)
    : pieces_(std::move(pieces)), scores_(std::move(scores)) {
  if (pieces_.size() != scores_.size()) {
    throw InvalidArgument(fmt::format("llama2.c tokenizer: {} pieces but {} scores", pieces_.size(), scores_.size()));
  }
  if (pieces_.size() < 259 || pieces_.size() > (1u << 24)) {
    throw InvalidArgument(fmt::format(
        "llama2.c tokenizer: {} pieces; need 259..16777216 (ids 3..258 must be the byte pieces)", pieces_.size()));
  }
  for (int b = 0; b < 256; ++b) {
    unsigned char v = 0;
    if (!parse_byte_piece(pieces_[static_cast<std::size_t>(b + 3)], &v) || v != b) {
      throw InvalidArgument(fmt::format("llama2.c tokenizer: piece {} is '{}', expected <0x{:02X}>", b + 3,
                                        printable(pieces_[static_cast<std::size_t>(b + 3)]), b));
    }
  }
  index_.reserve(pieces_.size());
  for (std::size_t i = 0; i < pieces_.size(); ++i) index_.emplace(pieces_[i], static_cast<int32_t>(i));
}

int32_t Llama2cTokenizer::lookup(const std::string& s) const {
  auto it = index_.find(s);
  return it == index_.end() ? -1 : it->second;
}

std::vector<int32_t> Llama2cTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int32_t> ids;
  if (!text.empty()) {
    const int32_t space = lookup(" ");
    ids.push_back(space >= 0 ? space : ' ' + 3);
  }
  // run.c: a code point is a byte followed by continuation bytes (10xxxxxx), at most 4 bytes in all.
  std::string cp;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t j = i + 1;
    while (j < text.size() && j - i < 4 && (static_cast<unsigned char>(text[j]) & 0xC0) == 0x80) ++j;
    cp.assign(text.substr(i, j - i));
    const int32_t id = lookup(cp);
    if (id >= 0) {
      ids.push_back(id);
    } else {
      for (char c : cp) ids.push_back(static_cast<unsigned char>(c) + 3);
    }
    i = j;
  }
  std::string joined;
  auto try_merge = [&](const int32_t& a, const int32_t& b) -> std::optional<std::pair<double, int32_t>> {
    joined = pieces_[static_cast<std::size_t>(a)];
    joined += pieces_[static_cast<std::size_t>(b)];
    const int32_t id = lookup(joined);
    if (id < 0) return std::nullopt;
    return std::pair{-static_cast<double>(scores_[static_cast<std::size_t>(id)]), id};
  };
  ids = greedy_merge(std::move(ids), try_merge);
  if (add_bos) ids.insert(ids.begin(), bos_id());
  return ids;
}

const std::string& Llama2cTokenizer::piece(int32_t id) const {
  check_id(id, "token id");
  return pieces_[static_cast<std::size_t>(id)];
}

TokenType Llama2cTokenizer::token_type(int32_t id) const {
  check_id(id, "token id");
  if (id == 0) return TokenType::Unknown;
  if (id == 1 || id == 2) return TokenType::Control;
  if (id < 259) return TokenType::Byte;
  return TokenType::Normal;
}

std::string Llama2cTokenizer::token_bytes(int32_t id) const {
  const std::string& p = piece(id);
  unsigned char b = 0;
  if (parse_byte_piece(p, &b)) return std::string(1, static_cast<char>(b));
  return p;
}

std::string Llama2cTokenizer::decode_piece(int32_t prev, int32_t id) const {
  if (prev != -1) check_id(prev, "previous token id");
  if (is_control(id)) return {};
  std::string s = token_bytes(id);
  if (prev == bos_id() && token_type(id) != TokenType::Byte && !s.empty() && s[0] == ' ') s.erase(0, 1);
  return s;
}

}  // namespace wgrt::text
