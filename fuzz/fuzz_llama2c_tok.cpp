// libFuzzer: the llama2.c tokenizer (run.c encode) on arbitrary bytes, with ../shared's tok512.bin.
// encode never throws; ids are in range; decode of the ids never throws.
#include <cstdlib>
#include <memory>
#include <string>

#include "formats/llama2c_tokenizer_file.h"
#include "text/llama2c_tokenizer.h"

namespace {
std::unique_ptr<wgrt::text::Llama2cTokenizer> g_tok;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto f = wgrt::Llama2cTokenizerFile::read(WGRT_SHARED_DIR "/models/stories260K/tok512.bin", 512);
  g_tok = std::make_unique<wgrt::text::Llama2cTokenizer>(std::move(f.pieces), std::move(f.scores));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<int32_t> ids = g_tok->encode(text, true);
  for (int32_t id : ids)
    if (id < 0 || id >= g_tok->vocab_size()) std::abort();
  (void)g_tok->decode(ids);
  return 0;
}
