// libFuzzer: the GGUF tokenizer metadata path, TokenizerSpec -> tokenizer (models/tokenizer_loader.h), on
// arbitrary GGUF bytes. Seeds (tests/corpus/gguf_tokenizer) hold real tokenizer.ggml.* keys ("llama" and
// "gpt2" vocabularies). Building must succeed or throw wgrt::Error; a built tokenizer must encode a few
// texts with in-range ids and decode every id without throwing.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include <wgrt/error.h>

#include "formats/gguf.h"
#include "models/tokenizer_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    wgrt::GgufFile g = wgrt::GgufFile::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.gguf");
    auto tok = wgrt::models::tokenizer_from_gguf(g);
    for (const char* text : {"Hello world", " 12 apples\n\n", "\xE2\x96\x81\xF0\x9F\x98\x80\xFF<s></s>", ""}) {
      for (int32_t id : tok->encode(text, false))
        if (id < 0 || id >= tok->vocab_size()) std::abort();
    }
    const int32_t n = std::min<int32_t>(tok->vocab_size(), 4096);
    for (int32_t id = 0; id < n; ++id) (void)tok->decode_piece(id > 0 ? id - 1 : -1, id);
  } catch (const wgrt::Error&) {
  }
  return 0;
}
