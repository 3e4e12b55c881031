// libFuzzer: the byte-level BPE tokenizer with each PCRE2 pre-tokenizer on arbitrary bytes. The first input
// byte picks the pre-tokenizer (table below), the rest is the text. The vocabulary: the 256 byte characters
// plus a few merges and special tokens. Byte-level BPE is lossless up to llama.cpp's lossy UTF-8 decoding (invalid
// bytes become U+FFFD before splitting): decode(encode(text)) == reencode_utf8_lossy(text) is checked.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "text/bpe_tokenizer.h"
#include "text/unicode_props.h"

namespace {

const char* const kPre[] = {"gpt2", "llama3", "qwen2", "smollm", "default"};
std::vector<std::unique_ptr<wgrt::text::Tokenizer>> g_toks;

wgrt::text::TokenizerSpec spec(const char* pre) {
  wgrt::text::TokenizerSpec s;
  s.model = "gpt2";
  s.pre = pre;
  s.add_bos = false;
  for (int b = 0; b < 256; ++b) s.tokens.push_back(wgrt::text::BpeTokenizer::byte_to_unicode(uint8_t(b)));
  for (const char* m : {"Ġ t", "h e", "Ġt he", "l l", "he ll", "hell o", "a a", "aa aa", "1 2", "Ġ Ġ"}) {
    std::string l(m), r = l.substr(l.find(' ') + 1);
    l.resize(l.find(' '));
    s.merges.push_back(l + " " + r);
    s.tokens.push_back(l + r);
  }
  s.tokens.push_back("<|endoftext|>");
  s.token_types.assign(s.tokens.size(), 1);
  s.token_types.back() = 3;
  s.eos_id = int32_t(s.tokens.size()) - 1;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const char* p : kPre) g_toks.push_back(wgrt::text::make_tokenizer(spec(p)));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& tok = g_toks[data[0] % g_toks.size()];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::vector<int32_t> ids = tok->encode(text, false);
  for (int32_t id : ids)
    if (id < 0 || id >= tok->vocab_size()) std::abort();
  // Control tokens decode to "": only texts without the special token's text round-trip.
  if (text.find("<|endoftext|>") == std::string::npos && tok->decode(ids) != wgrt::text::reencode_utf8_lossy(text))
    std::abort();
  return 0;
}
