// libFuzzer target: the chat-template (Jinja2) lexer, parser and evaluator. Each input is a template source,
// parsed and rendered over a fixed conversation (tests/support/chat_template_exercise.h). Seed corpus:
// tests/corpus/chat_template.
#include <cstddef>
#include <cstdint>

#include "support/chat_template_exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    wgrt::test::exercise_chat_template({data, size});
  } catch (const wgrt::Error&) {
  }
  return 0;
}
