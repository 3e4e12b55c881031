// The ONNX backend node tests (Debian libonnx-testdata: DIR/test_*/model.onnx + test_data_set_*/{input,output}_N.pb)
// on wgrt, as ONNX's own runner judges them (onnx/backend/test/runner: numpy.testing.assert_allclose with
// rtol 1e-3, atol 1e-7; integer and bool outputs exact; NaN must match NaN):
//   wgrt_onnx_conformance DATA_DIR [--filter SUBSTRING] [--verbose]
// A test counts when every operator of its model is one wgrt claims (onnx::supported_operators()). It is
// skipped, by rule, when loading or compiling it throws wgrt::Unsupported (an element type, attribute value,
// input kind or op variant wgrt refuses, named in the reason); anything else that goes wrong (a wrong value,
// another error) is a failure. Prints one line per skip and failure, then "N passed, M failed, K skipped
// (U tests use operators wgrt does not claim)"; exits 1 when any test failed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "formats/onnx/onnx_file.h"
#include "models/onnx_graph/host_tensor.h"
#include "models/onnx_graph/onnx_graph.h"
#include "util/file_bytes.h"
#include "wgrt/error.h"
#include "wgrt/onnx.h"

namespace fs = std::filesystem;
using namespace wgrt;

namespace {

onnx::Tensor read_pb(const fs::path& p) {
  const FileBytes f = FileBytes::open(p.string());
  return onnx::parse_tensor(f.bytes(), p.string());
}

OnnxTensor to_api(const onnx::Tensor& t, const std::string& name) {
  onnx::HostTensor h = onnx::host_from(t);
  OnnxTensor o;
  o.name = name;
  o.elem_type = int32_t(t.type);
  o.dims = t.dims;
  if (t.type == onnx::ElemType::Float) o.f32 = h.floats();
  else if (!h.is_float()) o.ints = h.i;
  else throw Unsupported(fmt::format("input '{}' has element type {}, which wgrt does not take", name, onnx::elem_name(t.type)));
  return o;
}

// "" when `got` matches `want`, else why not.
std::string compare(const OnnxTensor& got, const onnx::Tensor& want_t) {
  const onnx::HostTensor want = onnx::host_from(want_t);
  if (got.dims != want.dims) return fmt::format("dims [{}], expected [{}]", fmt::join(got.dims, ", "), fmt::join(want.dims, ", "));
  const size_t n = size_t(want.numel());
  if (want.is_float()) {
    if (got.elem_type != 1 || got.f32.size() != n) return fmt::format("element type {}, expected {}", got.elem_type, onnx::elem_name(want.type));
    size_t bad = 0;
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      const double g = got.f32[i], w = want.f[i];
      if (std::isnan(w) || std::isnan(g)) {
        if (std::isnan(w) != std::isnan(g)) ++bad, at = i;
        continue;
      }
      if (std::isinf(w) || std::isinf(g)) {
        if (g != w) ++bad, at = i;
        continue;
      }
      const double d = std::fabs(g - w);
      if (d > 1e-7 + 1e-3 * std::fabs(w)) {
        ++bad;
        if (d > worst) worst = d, at = i;
      }
    }
    if (bad) return fmt::format("{} of {} values differ (worst at {}: got {}, expected {})", bad, n, at, got.f32[at], want.f[at]);
    return "";
  }
  if (got.ints.size() != n) return fmt::format("element type {}, expected {}", got.elem_type, onnx::elem_name(want.type));
  for (size_t i = 0; i < n; ++i)
    if (got.ints[i] != want.i[i]) return fmt::format("value {} is {}, expected {}", i, got.ints[i], want.i[i]);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: wgrt_onnx_conformance DATA_DIR [--filter SUBSTRING] [--verbose]\n");
    return 2;
  }
  const fs::path root = argv[1];
  std::string filter;
  bool verbose = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--verbose") verbose = true;
  }
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx") && e.path().filename().string().find(filter) != std::string::npos)
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  const auto claimed_list = onnx::supported_operators();
  const std::set<std::string> claimed(claimed_list.begin(), claimed_list.end());
  std::unique_ptr<OnnxModel> device_holder;
  int passed = 0, failed = 0, skipped = 0, unclaimed = 0;
  std::map<std::string, int> per_op_pass, per_op_total;
  for (const auto& dir : dirs) {
    const std::string name = dir.filename().string();
    std::set<std::string> ops;
    try {
      const onnx::Model m = onnx::load_model((dir / "model.onnx").string());
      for (const auto& n : m.nodes) ops.insert(n.op_type);
      // Constant nodes became initializers: a test of Constant itself has no nodes left.
      if (m.nodes.empty()) ops.insert("Constant");
    } catch (const Unsupported& e) {
      // The file itself uses something wgrt does not read (e.g. a sequence input): only counts if its ops are claimed.
      ops.insert("?");
    } catch (const std::exception& e) {
      std::printf("FAIL %s: cannot read the model: %s\n", name.c_str(), e.what());
      ++failed;
      continue;
    }
    bool all_claimed = true;
    for (const auto& o : ops) all_claimed = all_claimed && (claimed.count(o) || o == "Constant");
    if (!all_claimed) {
      ++unclaimed;
      if (verbose) std::printf("not claimed %s\n", name.c_str());
      continue;
    }
    const std::string op_key = fmt::format("{}", fmt::join(ops, "+"));
    ++per_op_total[op_key];
    try {
      OnnxOptions opts;
      opts.share_device = device_holder.get();
      auto owned = OnnxModel::load((dir / "model.onnx").string(), opts);
      OnnxModel* model = owned.get();
      if (!device_holder) device_holder = std::move(owned);  // later models share its device
      std::string why;
      for (const auto& set : fs::directory_iterator(dir)) {
        if (!set.is_directory() || set.path().filename().string().rfind("test_data_set_", 0) != 0) continue;
        std::vector<OnnxTensor> in;
        for (size_t i = 0; i < model->inputs().size(); ++i) {
          const fs::path p = set.path() / fmt::format("input_{}.pb", i);
          if (!fs::exists(p)) break;
          in.push_back(to_api(read_pb(p), model->inputs()[i].name));
        }
        auto out = model->run(in);
        for (size_t i = 0; i < out.size() && why.empty(); ++i) {
          const fs::path p = set.path() / fmt::format("output_{}.pb", i);
          if (!fs::exists(p)) continue;
          why = compare(out[i], read_pb(p));
          if (!why.empty()) why = fmt::format("{} output {} '{}': {}", set.path().filename().string(), i, out[i].name, why);
        }
        if (!why.empty()) break;
      }
      if (why.empty()) {
        ++passed;
        ++per_op_pass[op_key];
        if (verbose) std::printf("pass %s\n", name.c_str());
      } else {
        ++failed;
        std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
      }
    } catch (const Unsupported& e) {
      ++skipped;
      std::printf("skip %s: %s\n", name.c_str(), e.what());
    } catch (const std::exception& e) {
      ++failed;
      std::printf("FAIL %s: %s\n", name.c_str(), e.what());
    }
  }
  std::printf("%d passed, %d failed, %d skipped (%d tests use operators wgrt does not claim; %zu operators claimed)\n", passed,
              failed, skipped, unclaimed, claimed.size());
  return failed ? 1 : 0;
}
