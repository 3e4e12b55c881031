// Running the `wgrt` CLI from tests: one process with a time limit, stdin from a file (default /dev/null, so
// that commands reading a non-terminal stdin see an empty one), stdout and stderr captured.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

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

// `prefix` goes before the binary (e.g. "timeout -s INT 2"); the default limit is 120 s.
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

}  // namespace wgrt::test
