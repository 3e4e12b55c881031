// Running the `wgrt` CLI from a test as a user would (time-limited, stdout and stderr captured), and the check
// that an error is one "wgrt: error: ..." line with exit code 1. Header-only; needs WGRT_CLI_PATH defined.
// stdin comes from a file, /dev/null by default: commands that read a non-terminal stdin (generate's prompt,
// chat's turns) must see an empty one, not the test runner's.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace wgrt::test {

struct RunResult {
  int exit_code = -1;  // -1: killed by a signal
  std::string out, err;
};

// Per-process folder: CTest runs tests in parallel processes.
inline std::filesystem::path cli_test_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("wgrt_cli_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// `prefix` goes before the binary (the time limit by default).
inline RunResult run_cli(const std::string& args, const std::string& stdin_path = "/dev/null",
                         const std::string& prefix = "timeout 120") {
  auto dir = cli_test_dir();
  std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
  std::string cmd = prefix + " " + std::string(WGRT_CLI_PATH) + " " + args + " <" + stdin_path + " >" + out + " 2>" + err;
  int st = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// Writes `text` to a file in the test folder and returns its path.
inline std::string text_file(const std::string& name, const std::string& text) {
  auto p = cli_test_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

// The error is one line on stderr, starting "wgrt: error:", with exit code 1.
inline void expect_clean_error(const RunResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("wgrt: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "missing '" << needle << "' in: " << r.err;
}

}  // namespace wgrt::test
