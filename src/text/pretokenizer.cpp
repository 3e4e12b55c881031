#include "text/pretokenizer.h"
#include "util/printable.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <fmt/format.h>

#include <wgrt/error.h>

#include "text/pre_table.h"

namespace wgrt::text {
struct PreTokenizer::Impl {
  std::vector<pcre2_code*> codes;  // immutable after construction: split() may run on several threads at once
  ~Impl() {
    for (auto* c : codes) pcre2_code_free(c);
  }
};

PreTokenizer::PreTokenizer(const std::vector<std::string>& patterns) : impl_(std::make_unique<Impl>()) {
  for (const auto& p : patterns) {
    int err = 0;
    PCRE2_SIZE off = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(),
                                  PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY, &err, &off, nullptr);
    if (!c) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(err, msg, sizeof msg);
      throw InvalidArgument(fmt::format("pre-tokenizer: regex '{}' does not compile at offset {}: {}", p, off,
                                        reinterpret_cast<const char*>(msg)));
    }
    pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);  // optional speed-up; the interpreter is used if JIT is unavailable
    impl_->codes.push_back(c);
  }
}

PreTokenizer::~PreTokenizer() = default;
PreTokenizer::PreTokenizer(PreTokenizer&&) noexcept = default;
PreTokenizer& PreTokenizer::operator=(PreTokenizer&&) noexcept = default;

PreTokenizer PreTokenizer::from_name(std::string_view pre) {
  if (auto spec = find_pre(pre)) return PreTokenizer(spec->regexes);
  throw Unsupported(unsupported_pre_message(pre));
}

std::string PreTokenizer::unsupported_pre_message(std::string_view pre) {
  if (pre_known_unsupported(pre)) {
    return fmt::format("tokenizer.ggml.pre '{}' is not supported: llama.cpp splits it with hand-written code that "
                       "wgrt does not have", printable(pre));
  }
  return fmt::format("tokenizer.ggml.pre '{}' is not a pre-tokenizer llama.cpp knows (e.g. 'default', 'gpt-2', "
                     "'llama-bpe', 'qwen2'); the file may be newer than wgrt or damaged", printable(pre));
}

std::vector<std::pair<std::size_t, std::size_t>> PreTokenizer::split(std::string_view text) const {
  std::vector<std::pair<std::size_t, std::size_t>> frags;
  if (text.empty()) return frags;
  frags.emplace_back(0, text.size());
  pcre2_match_data* md = pcre2_match_data_create(1, nullptr);
  if (!md) throw std::bad_alloc();
  std::vector<std::pair<std::size_t, std::size_t>> next;
  try {
    for (pcre2_code* code : impl_->codes) {
      next.clear();
      for (auto [foff, flen] : frags) {
        const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data() + foff);
        std::size_t pos = 0, last = 0;
        while (pos < flen) {
          const int rc = pcre2_match(code, subject, flen, pos, 0, md, nullptr);
          if (rc == PCRE2_ERROR_NOMATCH) break;
          if (rc < 0) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(rc, msg, sizeof msg);
            throw InvalidArgument(fmt::format("pre-tokenizer: match failed: {}", reinterpret_cast<const char*>(msg)));
          }
          const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
          const std::size_t ms = ov[0], me = ov[1];
          if (me == ms) {  // empty match (none of the built-in patterns can): step one byte on
            pos = ms + 1;
            continue;
          }
          if (ms > last) next.emplace_back(foff + last, ms - last);
          next.emplace_back(foff + ms, me - ms);
          pos = last = me;
        }
        if (last < flen) next.emplace_back(foff + last, flen - last);
      }
      frags.swap(next);
    }
  } catch (...) {
    pcre2_match_data_free(md);
    throw;
  }
  pcre2_match_data_free(md);
  return frags;
}

std::vector<std::string> PreTokenizer::split_strings(std::string_view text) const {
  std::vector<std::string> out;
  for (auto [o, n] : split(text)) out.emplace_back(text.substr(o, n));
  return out;
}

}  // namespace wgrt::text
