// ViT encoder and convolution benchmarks (Google Benchmark, manual time = GPU time from timestamp queries).
//   BM_VitB16/B     ViT-B/16 at 224x224 (random weights, vit_graph.h), batch B in {1, 8}: GPU ms per forward,
//                   GFLOP/s (matmul + conv FLOPs: 2 * MACs), and the per-kernel GPU-time table of the profiler
//                   printed after the run.
//   BM_VitWall/D/B  ViT-B/16 widths with depth D (D = 12 is ViT-B/16), batch B, profiling off: wall time per
//                   forward = set_input + execute + read_f32 of the features (as onnxruntime-node's session.run
//                   with CPU tensors; bench/ort/). Counters: median_ms, min_ms over the timed iterations (after
//                   one warm-up forward).
//   BM_Conv2d/...   aten.convolution (groups 1: implicit-im2col GEMM) on ViT patch-embedding and ResNet-style
//                   shapes: GFLOP/s = 2 N O OH OW C kh kw / time.
// Run: build-*/bench/wgrt_bench_vit [--benchmark_filter=...]. See bench/README.md.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <random>

#include "graph/executable.h"
#include "models/vit_graph.h"
#include "webgpu/device.h"

using namespace wgrt;

namespace {

webgpu::Device& dev() {
  static std::unique_ptr<webgpu::Device> d = webgpu::Device::create();
  return *d;
}

std::vector<float> random_vec(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Executes once per iteration (after a warm-up) and reports GPU time; returns mean GPU seconds.
double run(benchmark::State& st, ExecutableGraph& exe) {
  exe.enable_profiling(true);
  exe.execute();
  exe.profiler()->reset();
  double total = 0;
  for (auto _ : st) {
    double before = exe.profiler()->total_ns();
    exe.execute();
    exe.read_f32(exe.graph().outputs().front());  // waits for the GPU
    double t = (exe.profiler()->total_ns() - before) * 1e-9;
    st.SetIterationTime(t);
    total += t;
  }
  return st.iterations() ? total / double(st.iterations()) : 0;
}

std::map<std::string, std::string>& tables() {
  static std::map<std::string, std::string> t;
  return t;
}

double vit_flops(const models::VitConfig& c, int64_t B) {
  const double T = double(c.tokens()), W = double(c.width), M = double(c.mlp_dim), P = double(c.grid() * c.grid());
  const double per_layer = 2 * T * W * (3 * W + W + 2 * M) + 2 * 2 * T * T * W;  // linears + QK^T and AV
  const double patch = 2 * P * W * double(c.channels * c.patch * c.patch);
  return double(B) * (patch + double(c.depth) * per_layer);
}

void BM_VitB16(benchmark::State& st) {
  const int64_t B = st.range(0);
  const models::VitConfig c = models::VitConfig::vit_b16();
  auto vg = models::build_vit_graph(c, models::vit_random_weights(c, 1), B);
  const ValueId px = vg.pixels;
  auto exe = ExecutableGraph::build(std::move(vg.graph), dev());
  auto pixels = random_vec(size_t(B * 3 * 224 * 224), 2);
  exe->set_input(px, {B, 3, 224, 224}, std::span<const float>(pixels));
  const double sec = run(st, *exe);
  st.counters["ms/forward"] = sec * 1e3;
  st.counters["GFLOP/s"] = sec > 0 ? vit_flops(c, B) / sec / 1e9 : 0;
  st.SetLabel(fmt::format("{} dispatches, {:.1f} GFLOP/forward", exe->dispatch_count(), vit_flops(c, B) / 1e9));
  tables()[fmt::format("ViT-B/16 batch {}", B)] = exe->profiler()->table();
}

void BM_VitWall(benchmark::State& st) {
  models::VitConfig c = models::VitConfig::vit_b16();
  c.depth = st.range(0);
  const int64_t B = st.range(1);
  auto vg = models::build_vit_graph(c, models::vit_random_weights(c, 1), B);
  const ValueId px = vg.pixels;
  auto exe = ExecutableGraph::build(std::move(vg.graph), dev());
  const ValueId feat = exe->graph().outputs().front();
  auto pixels = random_vec(size_t(B * 3 * 224 * 224), 2);
  const Dims pd{B, 3, 224, 224};
  exe->set_input(px, pd, std::span<const float>(pixels));
  exe->execute();
  exe->read_f32(feat);  // warm-up (pipelines, first submit)
  std::vector<double> ms;
  for (auto _ : st) {
    auto t0 = std::chrono::steady_clock::now();
    exe->set_input(px, pd, std::span<const float>(pixels));
    exe->execute();
    auto y = exe->read_f32(feat);
    auto t1 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(y.data());
    const double sec = std::chrono::duration<double>(t1 - t0).count();
    st.SetIterationTime(sec);
    ms.push_back(sec * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) {
    const size_t n = ms.size();
    st.counters["median_ms"] = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    st.counters["min_ms"] = ms.front();
  }
  st.SetLabel(fmt::format("depth {}, {} dispatches, {:.1f} GFLOP/forward", c.depth, exe->dispatch_count(),
                          vit_flops(c, B) / 1e9));
}

void BM_Conv2d(benchmark::State& st) {
  const int64_t N = st.range(0), C = st.range(1), H = st.range(2), O = st.range(3), k = st.range(4), s = st.range(5),
                p = st.range(6);
  Graph g;
  ValueId x = g.input("x", DType::F32, {N, C, H, H});
  ValueId w = g.constant("w", DType::F32, {O, C, k, k}, ConstantData::from_vector(random_vec(size_t(O * C * k * k), 3)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("aten.convolution.default", {x, w, g.none(), g.int_list({s, s}), g.int_list({p, p}), g.int_list({1, 1}),
                                    g.boolean(false), g.int_list({0, 0}), g.int_value(1), out}, "conv");
  g.output(out);
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec(size_t(N * C * H * H), 4);
  exe->set_input(x, {N, C, H, H}, std::span<const float>(xv));
  const double sec = run(st, *exe);
  const int64_t OH = (H + 2 * p - k) / s + 1;
  const double flops = 2.0 * double(N * O * OH * OH) * double(C * k * k);
  st.counters["GFLOP/s"] = sec > 0 ? flops / sec / 1e9 : 0;
  st.SetLabel(fmt::format("x [{},{},{},{}] w [{},{},{},{}] s{} p{}", N, C, H, H, O, C, k, k, s, p));
}

}  // namespace

// One timed forward after a warm-up: ViT-B/16 takes tens of seconds per image on lavapipe.
BENCHMARK(BM_VitB16)->Arg(1)->Arg(8)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
// depth, batch: wall time (depth 2 keeps lavapipe runs short; depth 12 = full ViT-B/16)
BENCHMARK(BM_VitWall)->Args({2, 1})->Args({12, 1})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
// N, C, H(=W), O, k, stride, pad
BENCHMARK(BM_Conv2d)
    ->Args({1, 3, 224, 768, 16, 16, 0})
    ->Args({1, 64, 56, 64, 3, 1, 1})
    ->Args({1, 256, 56, 64, 1, 1, 0})
    ->Args({8, 3, 224, 768, 16, 16, 0})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  for (const auto& [name, table] : tables()) std::cout << "\nPer-kernel GPU time, " << name << ":\n" << table;
  benchmark::Shutdown();
  return 0;
}
