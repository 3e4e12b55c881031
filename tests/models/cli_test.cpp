// The `wgrt` CLI as a user runs it: the acceptance command's exact output, and one-line errors with a
// non-zero exit for bad input (never a crash or a hang: every run has a time limit).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "formats/llama2c_tokenizer_file.h"
#include "formats/model_weights.h"
#include "models/synth.h"
#include "model_test_util.h"
#include "support/run_cli.h"
#include "support/synth_model.h"
#include "text/llama2c_tokenizer.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

std::filesystem::path test_dir() { return cli_test_dir(); }

std::string temp_file(const std::string& name, const std::vector<char>& bytes) {
  auto p = test_dir() / name;
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return p.string();
}

std::vector<char> file_bytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

const std::string kBin = "-m " + stories("stories260K.bin") + " -t " + stories("tok512.bin");

}  // namespace

TEST(Cli, AcceptanceCommandPrintsTheReferenceGreedyText) {
  // Oracle: the CPU reference forward pass, greedy from BOS, 60 tokens, decoded as run.c does.
  WeightSource w = load_llama2c(stories("stories260K.bin"));
  CpuLlama cpu(w.config(), w);
  auto tf = Llama2cTokenizerFile::read(stories("tok512.bin"));
  text::Llama2cTokenizer tok(tf.pieces, tf.scores);
  std::string expect;
  int t = 1;
  for (int pos = 0; pos < 60; ++pos) {
    int next = argmax(cpu.forward(t, pos));
    if (next == 1) break;
    expect += tok.decode_piece(t, next);
    t = next;
  }
  RunResult r = run_cli("generate " + kBin + " -n 60 --temp 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expect + "\n");
  EXPECT_EQ(r.out.rfind("Once upon a time, there was a little girl named Lily.", 0), 0u);
  EXPECT_NE(r.err.find("tok/s"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GPU memory"), std::string::npos) << r.err;
}

TEST(Cli, SameSeedSameText) {
  RunResult a = run_cli("generate " + kBin + " -n 30 --temp 0.9 --top-k 40 --seed 7 -p \"Once upon a time\"");
  RunResult b = run_cli("generate " + kBin + " -n 30 --temp 0.9 --top-k 40 --seed 7 -p \"Once upon a time\"");
  RunResult c = run_cli("generate " + kBin + " -n 30 --temp 0.9 --top-k 40 --seed 8 -p \"Once upon a time\"");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
}

TEST(Cli, BadInputGivesOneLineErrors) {
  const std::string model = stories("stories260K.bin"), gguf = stories("stories260K.gguf"), tok = stories("tok512.bin");
  auto bin = file_bytes(model), gg = file_bytes(gguf);
  // Truncated llama2.c checkpoint.
  std::string trunc = temp_file("trunc.bin", std::vector<char>(bin.begin(), bin.begin() + 5000));
  expect_clean_error(run_cli("generate -m " + trunc + " -t " + tok), "trunc.bin");
  // Truncated GGUF: tensors reach past the end of the file.
  std::string gtrunc = temp_file("trunc.gguf", std::vector<char>(gg.begin(), gg.begin() + long(gg.size() / 2)));
  expect_clean_error(run_cli("generate -m " + gtrunc), "trunc.gguf");
  // Wrong magic in a file named .gguf: reported as a GGUF with the wrong magic. Under another name the same
  // bytes are read as a llama2.c checkpoint and rejected by its header check.
  auto bad = gg;
  bad[0] = 'X';
  expect_clean_error(run_cli("generate -m " + temp_file("magic.gguf", bad) + " -t " + tok), "expected the magic 'GGUF'");
  expect_clean_error(run_cli("generate -m " + temp_file("empty.gguf", {})), "the file is empty");
  expect_clean_error(run_cli("generate -m " + temp_file("two.GGUF", {'G', 'G'})), "starts with 47 47 (file has 2 bytes)");
  expect_clean_error(run_cli("generate -m " + temp_file("magic.model", bad) + " -t " + tok), "magic.model");
  // Huge tensor count in the GGUF header (offset 8, u64).
  auto huge = gg;
  for (int i = 0; i < 8; ++i) huge[size_t(8 + i)] = char(i == 7 ? 0x10 : 0xff);
  expect_clean_error(run_cli("generate -m " + temp_file("huge.gguf", huge)), "huge.gguf");
  // Wrong tokenizer for the model: a 3-token llama2.c tokenizer file.
  std::vector<char> small_tok = {8, 0, 0, 0};
  for (const char* piece : {"<unk>", "<s>", "</s>"}) {
    float score = 0;
    int32_t len = int32_t(std::strlen(piece));
    small_tok.insert(small_tok.end(), reinterpret_cast<char*>(&score), reinterpret_cast<char*>(&score) + 4);
    small_tok.insert(small_tok.end(), reinterpret_cast<char*>(&len), reinterpret_cast<char*>(&len) + 4);
    small_tok.insert(small_tok.end(), piece, piece + len);
  }
  expect_clean_error(run_cli("generate -m " + model + " -t " + temp_file("tok3.bin", small_tok)), "tokenizer");
  // An explicitly empty prompt.
  expect_clean_error(run_cli("generate " + kBin + " -p \"\""), "empty");
  // A prompt longer than the context.
  expect_clean_error(run_cli("generate " + kBin + " --ctx 8 -p \"Once upon a time there was a little girl named Lily\""),
                     "context");
  // Option values out of range: the argument parser's message, exit code 1.
  for (const char* bad : {"-n -2", "--temp nan", "--top-p 0 --temp 1", "--repeat-penalty -2 --temp 1", "--ctx abc",
                          "--seed -1 --temp 1", "--seed 18446744073709551616 --temp 1", "--seed ' -5' --temp 1",
                          "--seed ' 5' --temp 1", "--seed 0x10 --temp 1"}) {
    RunResult r = run_cli("generate " + kBin + " " + bad);
    expect_clean_error(r, bad[0] == '-' && bad[1] == '-' ? std::string(bad).substr(0, std::string(bad).find(' ')) : "");
    EXPECT_TRUE(r.out.empty()) << bad;
    EXPECT_LT(r.err.size(), 200u) << bad << ": " << r.err;  // one readable line, no 300-digit range
  }
  // A trace file that cannot be written is an error, not a claim of success.
  expect_clean_error(run_cli("generate " + kBin + " -n 2 --profile --trace /nonexistent-dir/t.json"), "trace");
  // A missing file is reported by the argument parser (exit code != 0, no crash).
  RunResult r = run_cli("generate -m /nonexistent/model.gguf");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, -1);
}

TEST(Cli, DawnTogglesDumpKernels) {
  // WGRT_DAWN_TOGGLES passes toggles to Dawn and forwards its log: dump_shaders prints each kernel's WGSL and
  // the SPIR-V made of it; the generated text is unchanged.
  RunResult plain = run_cli("generate " + kBin + " -n 4 --temp 0");
  setenv("WGRT_DAWN_TOGGLES", " dump_shaders , disable_symbol_renaming,,no_such_toggle", 1);
  RunResult dumped = run_cli("generate " + kBin + " -n 4 --temp 0");
  unsetenv("WGRT_DAWN_TOGGLES");
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err.substr(0, 500);
  EXPECT_NE(dumped.err.find("dawn: // Dumped WGSL:"), std::string::npos);
  EXPECT_NE(dumped.err.find("OpEntryPoint GLCompute"), std::string::npos);
  EXPECT_NE(dumped.err.find("OpName"), std::string::npos);  // disable_symbol_renaming took effect despite the blanks
  EXPECT_EQ(plain.err.find("Dumped WGSL"), std::string::npos);
  EXPECT_EQ(dumped.out, plain.out);
}

TEST(Cli, InfoOpsAndHelp) {
  RunResult info = run_cli("info");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  for (const char* k : {"maxStorageBufferBindingSize", "maxComputeWorkgroupStorageSize", "features:", "backend:"})
    EXPECT_NE(info.out.find(k), std::string::npos) << k;
  RunResult ops = run_cli("ops");
  ASSERT_EQ(ops.exit_code, 0);
  for (const char* k : {"llama.sdpa_with_kv_cache.default", "et_vk.linear_q4gsw.default", "aten.add.Tensor"})
    EXPECT_NE(ops.out.find(k), std::string::npos) << k;
  for (const char* sub : {"info", "generate", "bench", "ops", "graph"}) {
    RunResult h = run_cli(std::string(sub) + " --help");
    EXPECT_EQ(h.exit_code, 0) << sub;
    EXPECT_NE(h.out.find("Usage"), std::string::npos) << sub;
  }
  RunResult bad = run_cli("info --adapter no-such-adapter");
  expect_clean_error(bad, "available adapters");
  // An unknown command word or option is named, with the list of commands; no command at all says so.
  expect_clean_error(run_cli("frobnicate"), "unknown command 'frobnicate' (commands: info, generate");
  expect_clean_error(run_cli("-x"), "unknown option '-x'");
  expect_clean_error(run_cli("\"$(printf 'foo\\nbar')\""), "unknown command 'foo\\x0abar'");  // control characters escaped
  expect_clean_error(run_cli(""), "no command given");
  expect_clean_error(run_cli("info extra"), "extra");
  RunResult version = run_cli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("wgrt ", 0), 0u) << version.out;
}

// A FIFO as -m or -t used to block forever in open(2); it is refused from stat() alone.
TEST(Cli, FifoModelOrTokenizerIsRefused) {
  const std::string fifo = (test_dir() / "pipe.bin").string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_clean_error(run_cli("generate -m " + fifo + " -t " + stories("tok512.bin")), "is a FIFO (named pipe)");
  expect_clean_error(run_cli("generate -m " + stories("stories260K.bin") + " -t " + fifo),
                     "tokenizer file '" + fifo + "' is a FIFO");
  std::filesystem::remove(fifo);
}

// Strings from the file reach the terminal escaped, on one line.
TEST(Cli, FileStringsAreEscapedInErrors) {
  SynthSpec s;
  auto bytes = synth_llama_gguf(s);
  const std::string arch = "llama";
  auto it = std::search(bytes.begin(), bytes.end(), arch.begin(), arch.end());
  ASSERT_NE(it, bytes.end());
  std::copy_n("\x1b[2J\n", 5, it);  // same length: "llama" -> ESC [ 2 J LF
  std::vector<char> chars(bytes.begin(), bytes.end());
  RunResult r = run_cli("generate -m " + temp_file("escape.gguf", chars));
  expect_clean_error(r, "architecture '\\x1b[2J\\x0a' is not supported");
}

// Llama-3.2-1B's attention shape (32 query heads, 8 kv heads) at a 4096-token context with the default
// prefill chunk (512): scores in scratch would need 256 MiB, beyond lavapipe's 128 MiB binding limit, and
// `wgrt generate` failed at load before flash attention. It must load and generate, and give the same greedy
// text as with a short context and 3-token prefill chunks (other routes: split-KV off, narrow blocks).
TEST(Cli, LongContextDefaultPrefillChunkGenerates) {
  models::SynthConfig c{.name = "wide-attn", .arch = "llama", .dim = 256, .ffn = 64, .layers = 1, .heads = 32,
                        .kv_heads = 8, .head_dim = 8, .vocab = 300, .context = 4096, .init_std = 0.2f};
  const std::string path = (test_dir() / "wide_attn.gguf").string();
  models::synth_gguf(c, GgmlType::F32, 3).write(path);
  RunResult a = run_cli("generate -m " + path + " -p Hello -n 6 --temp 0");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_FALSE(a.out.empty());
  RunResult b = run_cli("generate -m " + path + " -p Hello -n 6 --temp 0 -c 64 --prefill-chunk 3");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  std::filesystem::remove(path);
}

// A weight matrix in a ggml type wgrt has no decoder for (TQ1_0, ternary), and a newer llama.cpp family wgrt
// does not run (gemma4): one-line errors naming the tensor and its type, and the architecture.
TEST(Cli, UndecodableTensorTypeAndUnsupportedFamilyNameWhat) {
  models::SynthConfig c{.name = "tq", .arch = "llama", .dim = 256, .ffn = 256, .layers = 1, .heads = 4, .kv_heads = 2,
                        .head_dim = 64, .vocab = 300, .context = 32};
  GgufFile g = GgufFile::from_bytes(models::synth_gguf(c, GgmlType::F32, 1).to_bytes());
  GgufWriter w, w4;
  for (const auto& [k, v] : g.metadata()) {
    w.set(k, v);
    if (k == "general.architecture") w4.set(k, GgufValue::of_string("gemma4"));
    else w4.set(k.starts_with("llama.") ? "gemma4." + k.substr(6) : k, v);
  }
  for (const auto& t : g.tensors()) {
    auto d = g.tensor_data(t);
    if (t.name == "blk.0.ffn_up.weight")
      w.add_tensor_raw(t.name, t.dims, 34, std::vector<uint8_t>(size_t(t.n_elements / 256 * 54), 0x11));  // TQ1_0
    else
      w.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
    w4.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
  }
  auto write = [](const std::string& name, const GgufWriter& gw) {
    const std::vector<uint8_t> b = gw.to_bytes();
    return temp_file(name, std::vector<char>(b.begin(), b.end()));
  };
  RunResult r = run_cli("generate -n 2 -m " + write("tq1.gguf", w));
  expect_clean_error(r, "ffn_up");
  EXPECT_NE(r.err.find("has type TQ1_0"), std::string::npos) << r.err;
  r = run_cli("generate -n 2 -m " + write("gemma4.gguf", w4));
  expect_clean_error(r, "architecture 'gemma4' is not supported");
  EXPECT_NE(r.err.find("docs/ARCHITECTURE.md"), std::string::npos) << r.err;
}
