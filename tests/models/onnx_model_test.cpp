// wgrt::OnnxModel (include/wgrt/onnx.h) and `wgrt run` on the seed models of tests/corpus/onnx (symbolic
// dims, host-folded shape subgraphs, conv/convtranspose/norm/pool/resize/matmul/softmax/reductions/slicing):
// each at two input sizes through one loaded model (the compiled-graph cache) vs onnxruntime-node's CPU EP
// (tests/golden/onnx_ort_run.mjs), |d| <= 1e-5 + 1e-4 |ref|; run-time input errors; the CLI's outputs and
// one-line errors with exit status 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include "formats/npy.h"
#include "support/paths.h"
#include "wgrt/error.h"
#include "wgrt/onnx.h"

namespace wgrt::test {
namespace {

namespace fs = std::filesystem;
using Dims = std::vector<int64_t>;

fs::path scratch(const std::string& tag) {
  const char* t = std::getenv("TMPDIR");
  fs::path p = fs::path(t ? t : "/tmp") / ("wgrt_onnx_" + tag + "_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}

std::vector<float> randn(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d;
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

std::string corpus(const std::string& name) { return source_path("tests/corpus/onnx/" + name + ".onnx"); }

struct Case {
  const char* model;
  std::vector<Dims> sizes;
};

class OnnxCorpusModels : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxCorpusModels, MatchOnnxRuntimeCpuAtSeveralSizes) {
  const Case& c = GetParam();
  const fs::path dir = scratch(c.model);
  auto m = OnnxModel::load(corpus(c.model));
  uint32_t seed = 3;
  for (const Dims& d : c.sizes) {
    int64_t n = 1;
    for (int64_t v : d) n *= v;
    const std::vector<float> x = randn(size_t(n), seed++);
    NpyArray a;
    a.dims = d;
    a.f32 = x;
    const fs::path in = dir / "x.npy", ref_dir = dir / ("ort" + std::to_string(seed));
    write_npy(in.string(), a);
    const std::string cmd = "node " + source_path("tests/golden/onnx_ort_run.mjs") + " " + corpus(c.model) + " " + ref_dir.string() + " x=" + in.string() + " >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const NpyArray ref = read_npy((ref_dir / "y.npy").string());
    OnnxRunStats st;
    auto out = m->run({OnnxTensor{"x", 1, d, x, {}}}, &st);
    EXPECT_TRUE(st.compiled);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dims, ref.dims);
    ASSERT_EQ(out[0].f32.size(), ref.f32.size());
    size_t bad = 0;
    for (size_t i = 0; i < ref.f32.size(); ++i)
      if (!(std::fabs(out[0].f32[i] - ref.f32[i]) <= 1e-5f + 1e-4f * std::fabs(ref.f32[i]))) ++bad;
    EXPECT_EQ(bad, 0u) << c.model << " at " << ::testing::PrintToString(d);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, OnnxCorpusModels,
    ::testing::Values(Case{"conv_bn_relu", {{1, 3, 9, 7}, {2, 3, 16, 5}}}, Case{"shape_reshape", {{2, 3, 4, 5}, {1, 3, 7, 3}}},
                      Case{"resize_transpose_convt", {{1, 3, 5, 4}, {2, 3, 3, 7}}},
                      Case{"attention_layernorm", {{1, 5, 8}, {1, 13, 8}}}, Case{"slice_split_pad_gemm", {{2, 9}, {2, 4}}},
                      Case{"pool_reduce", {{2, 3, 8, 6}, {1, 3, 13, 9}}}),
    [](const auto& info) { return std::string(info.param.model); });

template <typename E>
void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(OnnxModel, WrongInputsAtRunTimeAreOneLineErrors) {
  auto m = OnnxModel::load(corpus("conv_bn_relu"));
  ASSERT_EQ(m->inputs().size(), 1u);
  EXPECT_EQ(m->inputs()[0].dims, (Dims{-1, 3, -1, -1}));
  EXPECT_EQ(m->inputs()[0].dim_params[0], "N");
  const std::vector<float> x(2 * 3 * 4 * 4, 0.5f);
  expect_error<InvalidArgument>([&] { m->run({OnnxTensor{"x", 1, {2, 4, 4, 3}, x, {}}}); }, "has dims [2, 4, 4, 3]; the model needs [N, 3, H, W]");
  expect_error<InvalidArgument>([&] { m->run({OnnxTensor{"x", 1, {2, 3, 4, 5}, x, {}}}); }, "has 96 floats; dims [2, 3, 4, 5] need 120");
  expect_error<InvalidArgument>([&] { m->run({OnnxTensor{"x", 7, {2, 3, 4, 4}, {}, std::vector<int64_t>(96, 1)}}); }, "is int64; the model needs float");
  expect_error<InvalidArgument>([&] { m->run({}); }, "input 'x' is not given");
  expect_error<InvalidArgument>([&] { m->run({OnnxTensor{"x", 1, {2, 3, 4, 4}, x, {}}, OnnxTensor{"q", 1, {1}, {1}, {}}}); }, "no input named 'q'");
  expect_error<InvalidArgument>([&] { m->run({OnnxTensor{"x", 1, {2, 3, 4, 4}, x, {}}, OnnxTensor{"x", 1, {2, 3, 4, 4}, x, {}}}); }, "given twice");
  expect_error<Unsupported>([&] { m->run({OnnxTensor{"x", 1, {0, 3, 4, 4}, {}, {}}}); }, "empty tensors");
  // Still usable after the errors.
  auto out = m->run({OnnxTensor{"x", 1, {2, 3, 4, 4}, x, {}}});
  EXPECT_EQ(out[0].dims, (Dims{2, 4, 1, 1}));
}

struct CliResult {
  int status;
  std::string out, err;
};

CliResult cli(const std::string& args, const fs::path& dir) {
  const std::string cmd = std::string(WGRT_CLI_PATH) + " " + args + " >" + (dir / "out.txt").string() + " 2>" + (dir / "err.txt").string();
  const int rc = std::system(cmd.c_str());
  auto slurp = [](const fs::path& p) {
    std::ifstream f(p);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(dir / "out.txt"), slurp(dir / "err.txt")};
}

TEST(OnnxCli, RunWritesNpyOutputsAndASummary) {
  const fs::path dir = scratch("cli");
  NpyArray a;
  a.dims = {1, 5, 8};
  a.f32 = randn(40, 9);
  write_npy((dir / "x.npy").string(), a);
  const CliResult r = cli("run " + corpus("attention_layernorm") + " --input x=" + (dir / "x.npy").string() + " -o " + (dir / "o").string(), dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("output y [1, 5, 8]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ran "), std::string::npos) << r.out;
  const NpyArray y = read_npy((dir / "o" / "y.npy").string());
  EXPECT_EQ(y.dims, (Dims{1, 5, 8}));
  // LayerNorm-normalised rows: mean 0.
  for (int row = 0; row < 5; ++row) {
    double s = 0;
    for (int k = 0; k < 8; ++k) s += y.f32[size_t(row * 8 + k)];
    EXPECT_NEAR(s / 8, 0.0, 1e-5);
  }
  fs::remove_all(dir);
}

TEST(OnnxCli, BadFilesAndInputsGiveOneLineErrors) {
  const fs::path dir = scratch("clibad");
  {
    std::ofstream f(dir / "junk.onnx", std::ios::binary);
    f << "this is not a protobuf \xff\xff\xff";
  }
  std::ifstream src(corpus("conv_bn_relu"), std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
  {
    std::ofstream f(dir / "trunc.onnx", std::ios::binary);
    f << good.substr(0, good.size() / 2);
  }
  NpyArray a;
  a.dims = {1, 3, 4, 4};
  a.f32.assign(48, 1.0f);
  write_npy((dir / "x.npy").string(), a);
  a.dims = {1, 4, 4, 4};
  a.f32.assign(64, 1.0f);
  write_npy((dir / "x4.npy").string(), a);
  const std::string x = " --input x=" + (dir / "x.npy").string();
  struct Bad {
    std::string args, part;
  };
  for (const Bad& b : {Bad{"run " + (dir / "junk.onnx").string() + x, "corrupt or truncated protobuf"},
                       Bad{"run " + (dir / "trunc.onnx").string() + x, "ONNX file"},
                       Bad{"run " + (dir / "missing.onnx").string() + x, "missing.onnx"},
                       Bad{"run " + corpus("conv_bn_relu") + " --input y=" + (dir / "x.npy").string(), "no input of that name"},
                       Bad{"run " + corpus("conv_bn_relu") + " --input x=" + (dir / "x4.npy").string(), "the model needs [N, 3, H, W]"},
                       Bad{"run " + corpus("conv_bn_relu") + " --input x", "must be NAME=FILE.npy"},
                       Bad{"run " + corpus("conv_bn_relu") + " --input x=" + (dir / "junk.onnx").string(), "not a .npy file"}}) {
    const CliResult r = cli(b.args, dir);
    EXPECT_EQ(r.status, 1) << b.args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("wgrt: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(b.part), std::string::npos) << b.args << "\n" << r.err;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wgrt::test
