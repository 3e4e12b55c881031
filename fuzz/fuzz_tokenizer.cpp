// libFuzzer entry point for the tokenizers (SentencePiece, byte-level BPE under every supported pre-tokenizer,
// Gemma-4 style BPE, WordPiece) and the special-token splitter; see tests/support/tokenizer_fuzz.h.
// Build: cmake -DWGRT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run: ./fuzz_tokenizer ../tests/corpus/tokenizer
#include <cstddef>
#include <cstdint>

#include "support/tokenizer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    wgrt::test::exercise_tokenizer({data, size});
  } catch (const wgrt::Error&) {
    // LimitError on giant inputs is allowed; anything else escapes and aborts (a finding)
  }
  return 0;
}
