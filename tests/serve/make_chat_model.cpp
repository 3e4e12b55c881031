// Writes the tiny synthesized qwen2 chat model of tests/models/chat_model.h (ChatML template, <|im_start|> and
// <|im_end|> control tokens, std 0.2 weights) to argv[1], for the wgrt serve tests.
#include <cstdio>

#include "models/chat_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.gguf\n", argv[0]);
    return 1;
  }
  wgrt::models::synth_gguf(wgrt::test::chat_synth_config(256), wgrt::GgmlType::F32, 11).write(argv[1]);
  return 0;
}
