// What kind of model file a path holds, decided by its content (never by its name alone):
//   GGUF     the file starts with the magic "GGUF" (47 47 55 46);
//   Llama2c  anything else: llama2.c legacy checkpoints have no magic, so their header and exact size are
//            what identify them (checked when the file is read, see llama2c.h; a file failing that check is
//            reported as "not a model file", see not_a_model_message).
// Throws FormatError: the file cannot be opened; a file named *.gguf (any case) without the magic ("expected the
// magic 'GGUF'", with the bytes it starts with).
#pragma once
#include <string>

namespace wgrt {

enum class ModelFileKind { Gguf, Llama2c };

ModelFileKind model_file_kind(const std::string& path);

// One line for a file that is neither GGUF nor a valid llama2.c checkpoint: names the file, says it looks like
// text when its first bytes are printable, and appends `detail` (the llama2.c reader's reason).
std::string not_a_model_message(const std::string& path, const std::string& detail);

}  // namespace wgrt
