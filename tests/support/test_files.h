// Small helpers shared by the reliability tests: a per-process scratch folder and the message of the
// wgrt::Error a call throws.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <wgrt/error.h>

namespace wgrt::test {

// <tmp>/<prefix>_<pid>, created (CTest runs tests in parallel processes).
inline std::filesystem::path scratch_dir(const std::string& prefix) {
  auto d = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d;
}

// what() of the wgrt::Error that f() throws, or "(no error)".
inline std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace wgrt::test
