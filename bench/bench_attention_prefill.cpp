// GPU-time benchmark of llama.sdpa_with_kv_cache prefill: one 512-token chunk of Llama-3.2-1B's attention shape
// (Hq 32, Hkv 8, D 64, C_max 2048) at input_pos 0 and 1536 (the first and last chunks of a 2048-token prompt).
// Time = GPU time of the op's dispatches (cache write + attention) from timestamp queries, not wall time.
// Counter TFLOP/s = the causal work 4 * D * Hq * (keys seen, summed over the chunk's tokens) / GPU time.
// Route (tuning sdpa_prefill_rpt): 0 = the wide flash route (sdpa_flash.wgsl), 1/2/4 = the register-blocked
// kernel (sdpa_flash_prefill.wgsl) with 16/32/64-row blocks; split = its split-KV target workgroups (tuning
// sdpa_prefill_split_target_workgroups, chunks >= 256 keys; 0 = no split). Part of wgrt_bench_attention.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <map>
#include <memory>

#include "graph/executable.h"
#include "webgpu/device.h"

using namespace wgrt;

namespace {

constexpr int64_t kHq = 32, kHkv = 8, kD = 64, kCmax = 2048, kS = 512;

webgpu::Device& prefill_dev() {
  static std::unique_ptr<webgpu::Device> d = webgpu::Device::create();
  return *d;
}

webgpu::Tuning with_rpt(uint32_t rpt, int64_t split) {
  webgpu::Tuning t = prefill_dev().tuning();
  t.sdpa_prefill_rpt = rpt;
  t.sdpa_prefill_split_min_chunk = 256;
  t.sdpa_prefill_split_target_workgroups = split;
  return t;
}

struct PrefillGraph {
  ValueId q, k, v, pos, out;
  std::unique_ptr<ExecutableGraph> exe;
  PrefillGraph(uint32_t rpt, int64_t split) {
    webgpu::ScopedTuning scoped(prefill_dev(), with_rpt(rpt, split));  // the kernel's rows per block are fixed at build
    Graph g;
    q = g.input("q", DType::F32, {1, kS, kHq, kD});
    k = g.input("k", DType::F32, {1, kS, kHkv, kD});
    v = g.input("v", DType::F32, {1, kS, kHkv, kD});
    pos = g.input("input_pos", DType::I32, {1});
    ValueId kc = g.state("k_cache", DType::F32, {1, kCmax, kHkv, kD}), vc = g.state("v_cache", DType::F32, {1, kCmax, kHkv, kD});
    ValueId p = g.symint();
    g.op("et_vk.select_as_symint.default", {pos, g.int_value(0), g.int_value(0), p});
    out = g.tensor_like(DType::F32);
    g.op("llama.sdpa_with_kv_cache.default",
         {q, k, v, kc, vc, p, g.int_value(kS), g.none(), g.real(0.0), g.boolean(true), g.none(), out}, "attn");
    g.output(out);
    exe = ExecutableGraph::build(std::move(g), prefill_dev());
    std::vector<float> qv(kS * kHq * kD, 0.01f), kv(kS * kHkv * kD, 0.02f);
    exe->set_input(q, {1, kS, kHq, kD}, std::span<const float>(qv));
    exe->set_input(k, {1, kS, kHkv, kD}, std::span<const float>(kv));
    exe->set_input(v, {1, kS, kHkv, kD}, std::span<const float>(kv));
  }
};

void BM_SdpaPrefill(benchmark::State& state) {
  if (!prefill_dev().has_timestamps()) {
    state.SkipWithError("adapter has no timestamp-query");
    return;
  }
  const int64_t pos = state.range(0);
  const uint32_t rpt = uint32_t(state.range(1));
  const int64_t split = state.range(2);
  static std::map<std::pair<uint32_t, int64_t>, std::unique_ptr<PrefillGraph>> graphs;
  auto& g = graphs[{rpt, split}];
  if (!g) g = std::make_unique<PrefillGraph>(rpt, split);
  webgpu::ScopedTuning scoped(prefill_dev(), with_rpt(rpt, split));
  std::vector<int32_t> p = {int32_t(pos)};
  g->exe->set_input(g->pos, {1}, std::span<const int32_t>(p));
  g->exe->enable_profiling(true);
  g->exe->execute();  // warm-up
  (void)g->exe->read_f32(g->out);
  double total_ns = 0;
  for (auto _ : state) {
    g->exe->profiler()->reset();
    g->exe->execute();
    (void)g->exe->read_f32(g->out);
    const double ns = g->exe->profiler()->total_ns();
    total_ns += ns;
    state.SetIterationTime(ns * 1e-9);
  }
  g->exe->enable_profiling(false);
  const double keys = double(kS) * double(pos) + double(kS) * double(kS + 1) / 2;  // summed over the tokens
  const double mean_ns = total_ns / double(state.iterations());
  state.counters["TFLOP/s"] = 4.0 * kD * kHq * keys / mean_ns * 1e-3;
  state.counters["us"] = mean_ns * 1e-3;
  state.SetLabel(rpt ? fmt::format("pos {} register-blocked, {}-row blocks{}", pos, 16 * rpt,
                                   split ? fmt::format(", keys split below {} workgroups", split) : std::string())
                     : fmt::format("pos {} wide", pos));
}

BENCHMARK(BM_SdpaPrefill)
    ->ArgsProduct({{0, 1536}, {0, 1, 2, 4}, {0}})
    ->ArgsProduct({{0, 1536}, {1, 4}, {1024, 4096}})
    ->ArgNames({"pos", "rpt", "split"})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
