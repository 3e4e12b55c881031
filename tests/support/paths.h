// Paths to test inputs: the repository and ../shared (real models; never copied into the repo).
#pragma once
#include <string>

namespace wgrt::test {
// Absolute path of a file under ../shared, e.g. shared_path("models/stories260K/stories260K.bin").
std::string shared_path(const std::string& rel);
// Absolute path of a file in the repository.
std::string source_path(const std::string& rel);
}  // namespace wgrt::test
