// llama.cpp as an oracle in the model tests: tests/llamacpp/llamacpp_helper.c (node-llama-cpp's prebuilt CPU
// libllama, dlopened) quantizes files with llama_model_quantize and runs llama.cpp's CPU forward pass.
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace wgrt::test {

// Output of a command (stdout and stderr); a non-zero exit status is a test failure.
inline std::string run_cmd(const std::string& cmd) {
  std::array<char, 65536> buf;
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int st = pclose(p);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ADD_FAILURE() << "command failed: " << cmd << "\n" << out;
  return out;
}

inline const std::string& llamacpp_libdir() {
  static const std::string d = WGRT_LLAMACPP_LIBDIR;
  return d;
}

inline bool llamacpp_available() { return std::filesystem::exists(llamacpp_libdir() + "/libllama.v0.4.0.so"); }
inline const char* llamacpp_missing() {
  return "node-llama-cpp's CPU libraries are missing (WGRT_LLAMACPP_LIBDIR): run scripts/setup.sh (it runs "
         "'npm ci --ignore-scripts' in bench/)";
}

// wgrt_llamacpp_helper ARGS (LIBDIR inserted after the subcommand).
inline std::string llamacpp_helper(const std::string& sub, const std::string& args) {
  return run_cmd(std::string(WGRT_LLAMACPP_HELPER) + " " + sub + " " + llamacpp_libdir() + " " + args + " 2>&1");
}

// llama_model_quantize(in -> out) with llama.cpp's file type name (Q4_K_M, F32, ...).
inline void llamacpp_quantize(const std::string& in, const std::string& out, const std::string& type) {
  llamacpp_helper("quantize", in + " " + out + " " + type);
}

struct LlamaCppRun {
  std::vector<float> logits;  // after the prompt
  std::vector<int32_t> ids;   // greedy continuation
};

// llama.cpp's CPU run of `prompt` then n_gen greedy steps (KV cache of kv_type "f32" or "f16", no flash
// attention).
inline LlamaCppRun llamacpp_run(const std::string& model, const std::vector<int32_t>& prompt, int n_gen,
                                const std::string& kv_type = "f32") {
  std::string toks;
  for (int32_t t : prompt) toks += (toks.empty() ? "" : ",") + std::to_string(t);
  std::istringstream in(llamacpp_helper("run", model + " " + std::to_string(n_gen) + " " + toks + " " + kv_type));
  LlamaCppRun r;
  std::string line, word;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    ls >> word;
    if (word == "logits")
      for (float v; ls >> v;) r.logits.push_back(v);
    else if (word == "ids")
      for (int v; ls >> v;) r.ids.push_back(v);
  }
  return r;
}

}  // namespace wgrt::test
