#include "text/pretokenizer.h"
#include "util/printable.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <fmt/format.h>

#include <wgrt/error.h>

namespace wgrt::text {
namespace {

const char* const kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const char* const kGpt2NoTrail = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
const char* const kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3})"
    R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N})"
    R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

bool in(std::string_view name, std::initializer_list<std::string_view> names) {
  for (auto n : names) if (n == name) return true;
  return false;
}

}  // namespace

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
                                  PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &err, &off, nullptr);
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
  if (in(pre, {"gpt2", "mpt", "olmo", "jais"})) return PreTokenizer({kGpt2});
  if (in(pre, {"llama3", "llama-v3", "llama-bpe"})) return PreTokenizer({kLlama3});
  if (in(pre, {"qwen2", "stablelm2", "deepseek-r1-qwen"})) return PreTokenizer({kQwen2});
  if (in(pre, {"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone"})) {
    return PreTokenizer({R"(\p{N})", kGpt2NoTrail});
  }
  if (in(pre, {"default", ""})) {
    return PreTokenizer({R"([\p{P}\$\+<=>\^~\|]+)", kGpt2NoTrail, R"(\p{N}+)", "[0-9][0-9][0-9]"});
  }
  throw Unsupported(fmt::format("pre-tokenizer: tokenizer.ggml.pre '{}' is not supported", printable(pre)));
}

bool PreTokenizer::ignores_merges(std::string_view pre) { return in(pre, {"llama3", "llama-v3", "llama-bpe"}); }

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
