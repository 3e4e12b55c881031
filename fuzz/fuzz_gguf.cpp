// libFuzzer entry point for the GGUF reader (and the format-neutral Llama loader on top of it).
// Build: cmake -DWGRT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run: ./fuzz_gguf ../tests/corpus/gguf
#include <cstddef>
#include <cstdint>

#include "support/fuzz_exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    wgrt::test::exercise_gguf({data, size});
  } catch (const wgrt::Error&) {
    // expected for malformed input; anything else escapes and aborts (a finding)
  }
  return 0;
}
