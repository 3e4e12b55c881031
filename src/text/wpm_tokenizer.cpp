#include "text/wpm_tokenizer.h"

#include <fmt/format.h>

#include <wgrt/error.h>

#include "text/unicode_props.h"
#include "text/utf8.h"

namespace wgrt::text {
namespace {

bool is_cjk(uint32_t c) {  // the ranges llama.cpp (after HF tokenizers) treats as Chinese characters
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}
}  // namespace

WpmTokenizer::WpmTokenizer(TokenizerSpec spec)
    : SpecTokenizer(spec, "wpm tokenizer"),
      lowercase_(spec.lowercase),
      strip_accents_(spec.strip_accents),
      sep_id_(spec.sep_id) {
  if (vocab_.unk() < 0) throw InvalidArgument("wpm tokenizer: the vocabulary has no unknown token (unknown_token_id)");
  if (sep_id_ < -1 || sep_id_ >= vocab_.size()) {
    throw InvalidArgument(fmt::format("wpm tokenizer: seperator_token_id {} out of range [0, {})", sep_id_, vocab_.size()));
  }
  for (int32_t i = 0; i < vocab_.size(); ++i) max_len_ = std::max(max_len_, vocab_.text(i).size());
}

std::vector<std::string> WpmTokenizer::words(std::string_view text) const {
  std::vector<std::string> words(1);
  for (uint32_t cp : decode_utf8_lossy(text)) {
    if (strip_accents_) cp = cp_nfd_first(cp);
    const CpFlags f = cp_flags(cp);
    if (f.whitespace) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    if (cp == 0 || cp == 0xFFFD || f.category == CpFlags::Control) continue;
    if (strip_accents_ && f.category == CpFlags::Mark) continue;
    std::string s;
    append_utf8(s, lowercase_ ? cp_tolower(cp) : cp);
    if (f.category == CpFlags::Punctuation || (cp < 0x7F && f.category == CpFlags::Symbol) || is_cjk(cp)) {
      if (!words.back().empty()) words.emplace_back();
      words.back() = std::move(s);
      words.emplace_back();
    } else {
      words.back() += s;
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

std::vector<int32_t> WpmTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int32_t> ids;
  if (add_bos) {
    if (vocab_.bos() < 0) throw InvalidArgument("wpm tokenizer: add_bos requested but the vocabulary has no [CLS]");
    if (sep_id_ < 0) throw InvalidArgument("wpm tokenizer: add_bos requested but the vocabulary has no [SEP]");
    ids.push_back(vocab_.bos());
  }
  for (const auto& f : vocab_.split_special(text)) {
    if (f.token >= 0) {
      ids.push_back(f.token);
      continue;
    }
    for (const std::string& w : words(f.text)) {
      if (w.empty()) continue;
      const std::string word = std::string(kEscapedSpace) + w;
      const std::size_t n = word.size(), start = ids.size();
      for (std::size_t i = 0; i < n; ++i) {
        bool match = false;
        for (std::size_t j = std::min(n, i + max_len_ + 1); j > i; --j) {
          const int32_t id = vocab_.find(std::string_view(word).substr(i, j - i));
          if (id >= 0) {
            ids.push_back(id);
            match = true;
            i = j - 1;
            break;
          }
        }
        if (!match) {
          ids.resize(start);
          break;
        }
      }
      if (ids.size() == start) ids.push_back(vocab_.unk());
    }
  }
  if (add_bos) ids.push_back(sep_id_);
  return ids;
}

std::string WpmTokenizer::token_bytes(int32_t id) const {
  const std::string& p = piece(id);
  const TokenType t = vocab_.type(id);
  if (t != TokenType::Normal && t != TokenType::Unused && t != TokenType::Undefined) return p;
  return unescape_spaces(p);
}

std::string WpmTokenizer::decode_piece(int32_t prev, int32_t id) const {
  if (prev != -1) check_id(prev, "previous token id");
  if (is_control(id)) return {};
  std::string s = token_bytes(id);
  if ((prev == -1 || is_control(prev)) && !s.empty() && s[0] == ' ') s.erase(0, 1);
  return s;
}

}  // namespace wgrt::text
