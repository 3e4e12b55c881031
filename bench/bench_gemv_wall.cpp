// Wall-time q4 GEMV benchmark, for comparison with engines that expose no GPU timestamps (onnxruntime-node's
// WebGPU EP, bench/ort/bench_matmulnbits.mjs): one graph with a single et_vk.linear_q4gsw.default node
// (x [1, K] f32, random q4gsw weights [N, K], G = 32, no bias, out [1, N] f32), timed per iteration as
// set_input(x) + execute() + read_f32(out) (upload K floats, submit, wait, map and copy back N floats) with
// std::chrono::steady_clock, as session.run(feeds) does in onnxruntime-node (CPU tensors in and out).
// Prints one line per shape: median, min and mean wall time in microseconds over the timed runs, after warm-up runs.
// Usage: wgrt_bench_gemv_wall [--runs N] [--warmup W] [K N]...   (default shapes 256x256 (fixed-cost probe),
//        2048x2048, 2048x8192, 8192x2048)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "graph/executable.h"
#include "webgpu/device.h"

using namespace wgrt;

namespace {

template <typename T>
std::vector<T> random_vec(size_t n, T lo, T hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<T> u(lo, hi == 0 ? std::numeric_limits<T>::max() : hi);
    for (auto& x : v) x = u(rng);
  } else {
    std::uniform_real_distribution<T> u(lo, hi);
    for (auto& x : v) x = u(rng);
  }
  return v;
}

void bench_shape(webgpu::Device& dev, int64_t K, int64_t N, int runs, int warmup) {
  const int64_t G = 32;
  Graph g;
  ValueId x = g.input("x", DType::F32, {1, K});
  ValueId qw = g.constant("qweight", DType::U32, {N, K / 8},
                          ConstantData::from_vector(random_vec<uint32_t>(size_t(N * K / 8), 0, 0, 1)));
  ValueId sc = g.constant("scales", DType::F32, {N, K / G},
                          ConstantData::from_vector(random_vec<float>(size_t(N * K / G), 0.001f, 0.01f, 2)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("et_vk.linear_q4gsw.default", {x, qw, sc, g.int_value(G), g.none(), out}, "gemv_q4");
  g.output(out);
  auto exe = ExecutableGraph::build(std::move(g), dev);
  auto xv = random_vec<float>(size_t(K), -1.0f, 1.0f, 3);
  exe->set_input(x, {1, K}, std::span<const float>(xv));
  for (int i = 0; i < warmup; ++i) {
    exe->execute();
    exe->read_f32(out);
  }
  std::vector<double> us;
  us.reserve(size_t(runs));
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    exe->set_input(x, {1, K}, std::span<const float>(xv));
    exe->execute();
    auto y = exe->read_f32(out);
    auto t1 = std::chrono::steady_clock::now();
    if (y.size() != size_t(N)) throw std::runtime_error("unexpected output size");
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::vector<double> s = us;
  std::sort(s.begin(), s.end());
  const double med = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  const double mean = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
  const double wbytes = double(N * K / 2 + N * K / G * 4);
  fmt::print("wgrt q4gsw GEMV K {:5} N {:5}: median {:9.1f} us  min {:9.1f} us  mean {:9.1f} us  ({} runs, {} warm-up; "
             "{} dispatches; weights+scales {:.1f} MB -> {:.2f} GB/s at the median)\n",
             K, N, med, s.front(), mean, runs, warmup, exe->dispatch_count(), wbytes / 1e6, wbytes / med / 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 50, warmup = 5;
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc) {
      warmup = std::max(0, std::atoi(argv[++i]));
    } else if (i + 1 < argc) {
      shapes.emplace_back(std::atoll(argv[i]), std::atoll(argv[i + 1]));
      ++i;
    } else {
      fmt::print(stderr, "usage: {} [--runs N] [--warmup W] [K N]...\n", argv[0]);
      return 2;
    }
  }
  if (shapes.empty()) shapes = {{256, 256}, {2048, 2048}, {2048, 8192}, {8192, 2048}};
  auto dev = webgpu::Device::create();
  fmt::print("adapter: {} ({})\n", dev->adapter_info().description, dev->adapter_info().backend);
  for (auto [K, N] : shapes) {
    if (K <= 0 || N <= 0 || K % 32 != 0) {
      fmt::print(stderr, "bad shape K {} N {} (K must be a positive multiple of 32)\n", K, N);
      return 2;
    }
    bench_shape(*dev, K, N, runs, warmup);
  }
  return 0;
}
