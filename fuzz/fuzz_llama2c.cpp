// libFuzzer entry point for the llama2.c checkpoint reader and tokenizer-file reader: the first input byte
// selects the parser (even: checkpoint, odd: tokenizer file), the rest is the file.
// Build: cmake -DWGRT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run: ./fuzz_llama2c ../tests/corpus/llama2c
#include <cstddef>
#include <cstdint>

#include "support/fuzz_exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> file(data + 1, size - 1);
  try {
    if (data[0] & 1)
      wgrt::test::exercise_llama2c_tokenizer(file);
    else
      wgrt::test::exercise_llama2c(file);
  } catch (const wgrt::Error&) {
  }
  return 0;
}
