// GPU-time benchmark of llama.sdpa_with_kv_cache decode (S = 1): Hq 32, Hkv 8, D 64, C_max 4096, at live
// context 128, 1024 and 4096 (input_pos = context - 1 on one graph). Time = GPU time of the op's dispatches
// (cache writes + attention) from timestamp queries (ExecutableGraph::enable_profiling, Profiler), not wall
// time. Counter GB/s = K and V cache bytes the step must read (2 * context * Hkv * D * 4) / GPU time.
// Routes: 0 = the op's rule (the decode kernel sdpa_decode.wgsl, split-KV when context >= the tuning policy's
// sdpa_split_min_context), 1 = the scores-in-scratch route (tuning sdpa_legacy), 2 = the rule with split off,
// 3 = the previous decode path (sdpa_flash.wgsl's narrow kernel + combine; tuning sdpa_decode_kernel off).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <limits>

#include "graph/executable.h"
#include "webgpu/device.h"

using namespace wgrt;

namespace {

constexpr int64_t kHq = 32, kHkv = 8, kD = 64, kCmax = 4096;

webgpu::Device& dev() {
  static std::unique_ptr<webgpu::Device> d = webgpu::Device::create();
  return *d;
}

struct DecodeGraph {
  ValueId q, k, v, pos, out;
  std::unique_ptr<ExecutableGraph> exe;
  explicit DecodeGraph(bool legacy) {
    webgpu::Tuning t = dev().tuning();
    t.sdpa_legacy = legacy;
    webgpu::ScopedTuning scoped(dev(), t);
    Graph g;
    q = g.input("q", DType::F32, {1, 1, kHq, kD});
    k = g.input("k", DType::F32, {1, 1, kHkv, kD});
    v = g.input("v", DType::F32, {1, 1, kHkv, kD});
    pos = g.input("input_pos", DType::I32, {1});
    ValueId kc = g.state("k_cache", DType::F32, {1, kCmax, kHkv, kD}), vc = g.state("v_cache", DType::F32, {1, kCmax, kHkv, kD});
    ValueId p = g.symint();
    g.op("et_vk.select_as_symint.default", {pos, g.int_value(0), g.int_value(0), p});
    out = g.tensor_like(DType::F32);
    g.op("llama.sdpa_with_kv_cache.default",
         {q, k, v, kc, vc, p, g.int_value(1), g.none(), g.real(0.0), g.boolean(true), g.none(), out}, "attn");
    g.output(out);
    exe = ExecutableGraph::build(std::move(g), dev());
    std::vector<float> qv(kHq * kD, 0.01f), kv(kHkv * kD, 0.02f);
    exe->set_input(q, {1, 1, kHq, kD}, std::span<const float>(qv));
    exe->set_input(k, {1, 1, kHkv, kD}, std::span<const float>(kv));
    exe->set_input(v, {1, 1, kHkv, kD}, std::span<const float>(kv));
  }
};

void BM_SdpaDecode(benchmark::State& state) {
  if (!dev().has_timestamps()) {
    state.SkipWithError("adapter has no timestamp-query");
    return;
  }
  const bool legacy = state.range(1) == 1, nosplit = state.range(1) == 2, old_flash = state.range(1) == 3;
  static DecodeGraph flash_graph(false), legacy_graph(true);
  DecodeGraph& g = legacy ? legacy_graph : flash_graph;
  const int64_t ctx = state.range(0);
  const webgpu::Tuning saved_tuning = dev().tuning();
  const int64_t saved = saved_tuning.sdpa_split_min_context;
  webgpu::Tuning t = saved_tuning;
  t.sdpa_legacy = legacy;
  if (nosplit) t.sdpa_split_min_context = std::numeric_limits<int64_t>::max();
  if (old_flash) t.sdpa_decode_kernel = false;
  dev().set_tuning(t);
  std::vector<int32_t> p = {int32_t(ctx - 1)};
  g.exe->set_input(g.pos, {1}, std::span<const int32_t>(p));
  g.exe->enable_profiling(true);
  for (int i = 0; i < 2; ++i) g.exe->execute();  // warm-up
  (void)g.exe->read_f32(g.out);
  double total_ns = 0;
  for (auto _ : state) {
    g.exe->profiler()->reset();
    g.exe->execute();
    (void)g.exe->read_f32(g.out);
    double ns = g.exe->profiler()->total_ns();
    total_ns += ns;
    state.SetIterationTime(ns * 1e-9);
  }
  g.exe->enable_profiling(false);
  dev().set_tuning(saved_tuning);
  const double kv_bytes = 2.0 * double(ctx) * kHkv * kD * 4;
  const double mean_ns = total_ns / double(state.iterations());
  state.counters["GB/s"] = kv_bytes / mean_ns;
  state.counters["us"] = mean_ns * 1e-3;
  state.SetLabel(fmt::format("ctx {} {}{}", ctx, legacy ? "legacy" : old_flash ? "sdpa_flash" : "decode kernel",
                             !legacy && !nosplit && ctx >= saved ? " split-KV" : ""));
}

BENCHMARK(BM_SdpaDecode)
    ->ArgsProduct({{128, 640, 2048, 4096}, {0, 1, 2, 3}})
    ->ArgNames({"ctx", "route"})  // 0 the op's rule, 1 legacy, 2 the rule without split-KV, 3 sdpa_flash.wgsl
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
