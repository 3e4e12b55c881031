// GPU-time benchmarks of the LLM linear kernels (Google Benchmark with manual time = GPU time from
// timestamp queries via ExecutableGraph::enable_profiling / Profiler, not wall time).
//   q4gsw GEMV (M = 1)   K x N = 2048x2048, 2048x8192, 8192x2048, 2048x128256 (the last one is split into
//                        binding chunks where maxStorageBufferBindingSize is 128 MiB)
//   block-format GEMV    wgrt.linear_ggml (Q4_K, Q6_K, Q8_0) at K x N = 2048x8192 for M = 1, 2, 4, 8 rows of
//                        x, with the layout-aware kernel (gemv_kq.wgsl) and the generic one (gemv_ggml.wgsl):
//                        batched decode should cost about the same at M 8 as at M 1; Q6_K and Q8_0 also at
//                        2048x128256, M 1 (the LM heads of llama.cpp's Q4_K_M and Q4_0 1B files), int8 x;
//                        Q5_0 / Q8_0 at Qwen2-0.5B's widths (K 896: the fallback types of its Q4_K_M file), also
//                        fused gate/up (BM_GemvGgmlFused) against the fused q4gsw GEMV (BM_GemvQ4Fused)
//   f32 GEMV             2048x2048
//   GEMM (f32 and q4)    M = 128, 512 at K = N = 2048; q4 also M = 2048, the 1B's MLP shapes and K/V
//                        projections (WGRT_GEMM_MMQ=0 / 1 compare the f32 and int8 prefill kernels,
//                        WGRT_GEMM_MMQ_TILE the int8 tiles)
//   int8 GEMM variants   BM_GemmMmq: both int8 prefill kernels (q4gsw, Q4_K) at M 512 / 2048 for K x N = 2048x2048,
//                        2048x512, 2048x8192, 8192x2048, per tile / pipeline variant; the GEMM kernel's time
//                        alone and TOPS (int8 operations)
//   block-format GEMM    BM_GemmGgml: wgrt.linear_ggml (Q4_K, Q6_K) at M = 512 on the GEMM route (the int8
//                        kernel on GPUs with packed dot products) for K x N = 2048x2048, 2048x512, 2048x8192
//   addmm (f32)          ViT-B/16's linear shapes at M = 197 and 1576 (B [K, N]; the mm kernel and split-K rule)
//   vec4 copy            the code bytes of each q4 weight (capped at the binding limit): the bandwidth reference
//   vec4 read            the total bytes of each q4 GEMV (read only, nothing stored): the read ceiling
// Counters: GB/s (bytes the kernel must read, plus written for copy), GFLOP/s (2 M N K), and a summary line
// per GEMV with its bandwidth relative to the copy and the read nearest its size. All data is random.
// See bench/README.md.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>

#include "graph/executable.h"
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/linear/linear_ggml.h"
#include "webgpu/device.h"
#include "webgpu/tuning.h"

using namespace wgrt;

namespace {

webgpu::Device& dev() {
  static std::unique_ptr<webgpu::Device> d = webgpu::Device::create();
  return *d;
}

struct StreamParams {
  uint32_t n, pad0, pad1, pad2;
};
WGRT_UNIFORM(StreamParams, n, pad0, pad1, pad2);

// bench.copy_vec4(src f32 [n], dst f32 [n]) and bench.read_vec4(src f32 [n], dst f32 [>= 4]):
// ops/copy/copy_vec4.wgsl entry points `main` and `read_all`, n % 4 == 0.
void add_stream_op(OpRegistry& r, const std::string& name, const std::string& entry) {
  r.add({name,
         [entry](OpBuilder& b) {
           UniformRef u = b.uniform<StreamParams>();
           DispatchRef d = b.dispatch({"ops/copy/copy_vec4.wgsl", entry, {}, {}},
                                      {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), u});
           b.on_resize([=](ResizeContext& r) {
             uint32_t n = uint32_t(numel(r.tensor(0).dims) / 4);
             r.set_uniform(u, StreamParams{n, 0, 0, 0});
             r.set_invocations(d, n);
           });
         },
         {"ops/copy/copy_vec4.wgsl:" + entry}, true});
}

const OpRegistry& registry() {
  static OpRegistry reg = [] {
    OpRegistry r = OpRegistry::builtin();
    add_stream_op(r, "bench.copy_vec4", "main");
    add_stream_op(r, "bench.read_vec4", "read_all");
    return r;
  }();
  return reg;
}

// Summary printed after the run: copy GB/s by bytes copied, read GB/s by bytes read; GEMVs by name with their
// code bytes, total bytes read and GB/s.
struct GemvResult {
  uint64_t code_bytes, total_bytes;
  double gbps;
};
struct Summary {
  std::map<uint64_t, double> copy, read;
  std::map<std::string, GemvResult> gemv;
};
Summary& summary() {
  static Summary s;
  return s;
}

template <typename T>
std::vector<T> random_vec(size_t n, T lo, T hi) {
  std::mt19937 rng(42);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> u(lo, hi);
    for (auto& x : v) x = u(rng);
  } else {
    for (auto& x : v) x = T(rng());
  }
  return v;
}

// Executes `exe` once per iteration and reports its GPU time; returns the mean GPU seconds per execute.
double run(benchmark::State& st, ExecutableGraph& exe) {
  exe.enable_profiling(true);
  exe.execute();  // warm-up
  exe.profiler()->reset();
  double total = 0;
  for (auto _ : st) {
    double before = exe.profiler()->total_ns();
    exe.execute();  // collect() reads the timestamps back (waits for the GPU)
    double t = (exe.profiler()->total_ns() - before) * 1e-9;
    st.SetIterationTime(t);
    total += t;
  }
  return st.iterations() ? total / double(st.iterations()) : 0;
}

// GB/s and GFLOP/s from the mean GPU time; returns GB/s.
double set_counters(benchmark::State& st, double sec, double bytes, double flops) {
  double gbps = sec > 0 ? bytes / sec / 1e9 : 0;
  st.counters["GB/s"] = gbps;
  if (flops > 0) st.counters["GFLOP/s"] = sec > 0 ? flops / sec / 1e9 : 0;
  return gbps;
}

// Runs bench.copy_vec4 (copy) or bench.read_vec4 over `bytes` of random f32 (capped at the binding limit);
// returns the bytes actually streamed and the mean GPU seconds.
std::pair<uint64_t, double> run_stream(benchmark::State& st, bool copy, uint64_t bytes) {
  uint64_t lim = dev().limits().maxStorageBufferBindingSize;
  if (bytes > lim) bytes = lim / 16 * 16;
  int64_t n = int64_t(bytes / 4);
  Graph g;
  ValueId src = g.constant("src", DType::F32, {n}, ConstantData::from_vector(random_vec<float>(size_t(n), -1.0f, 1.0f)));
  ValueId dst = g.tensor(DType::F32, {copy ? n : 4}, "dst");
  g.output(dst);
  g.op(copy ? "bench.copy_vec4" : "bench.read_vec4", {src, dst}, "stream");
  auto exe = ExecutableGraph::build(std::move(g), dev(), &registry());
  return {bytes, run(st, *exe)};
}

void BM_Copy(benchmark::State& st) {
  auto [bytes, sec] = run_stream(st, true, uint64_t(st.range(0)));
  summary().copy[bytes] = set_counters(st, sec, 2.0 * double(bytes), 0);
  st.SetLabel(fmt::format("{} MB copied", bytes / 1e6));
}

// Read-only stream of `bytes` (counted once): the read-bandwidth ceiling a GEMV could reach.
void BM_Read(benchmark::State& st) {
  auto [bytes, sec] = run_stream(st, false, uint64_t(st.range(0)));
  summary().read[bytes] = set_counters(st, sec, double(bytes), 0);
  st.SetLabel(fmt::format("{} MB read", bytes / 1e6));
}

void BM_GemvQ4(benchmark::State& st) {
  const int64_t K = st.range(0), N = st.range(1), G = 32;
  Graph g;
  ValueId x = g.input("x", DType::F32, {1, K});
  ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(random_vec<uint32_t>(size_t(N * K / 8), 0, 0)));
  ValueId sc = g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(random_vec<float>(size_t(N * K / G), 0.001f, 0.01f)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  g.op("et_vk.linear_q4gsw.default", {x, qw, sc, g.int_value(G), g.none(), out}, "gemv_q4");
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec<float>(size_t(K), -1.0f, 1.0f);
  exe->set_input(x, {1, K}, std::span<const float>(xv));
  double sec = run(st, *exe);
  double bytes = double(N * K / 2 + N * K / G * 4 + K * 4 + N * 4);
  double gbps = set_counters(st, sec, bytes, 2.0 * double(N * K));
  summary().gemv[fmt::format("q4gsw GEMV K {} N {}", K, N)] = {uint64_t(N * K / 2), uint64_t(bytes), gbps};
  st.SetLabel(fmt::format("{} dispatches, weights {:.1f} MB", exe->dispatch_count(), double(N * K / 2) / 1e6));
}

// Args: ggml type id, K, N, M, kernel (1 = gemv_kq "blocks" with f32 x, 2 / 3 = gemv_kq with int8 x staged per
// workgroup / from a quantize pass (its dispatch included; where the device has packed int8 dot products; the
// policy's ggml_gemv_int8 2 / 1), 0 = generic). Block bytes are random in
// 0x20..0x3b, so every f16 scale is a normal number (about 2^-7 .. 1).
// Weight words for the block-format GEMVs: bytes 0x20 .. 0x3B (finite small f16 scales, any codes).
std::vector<uint32_t> block_words(uint64_t bytes) {
  std::vector<uint32_t> words((bytes + 3) / 4);
  std::mt19937 rng(7);
  for (auto& w : words) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= (0x20u + rng() % 28u) << (8 * i);
    w = v;
  }
  return words;
}

// Elements and bytes per block in the GPU layout (ops::ggml_gpu_block: Q6_K's 210-byte blocks padded), and the
// name, of the block types benchmarked here (src/formats/ggml_blocks.h).
struct BenchBlock {
  int64_t elems, bytes;
  const char* name;
};
BenchBlock bench_block(int64_t type) {
  const char* name = type == 6 ? "Q5_0" : type == 8 ? "Q8_0" : type == 12 ? "Q4_K" : type == 14 ? "Q6_K" : nullptr;
  if (!name) throw std::invalid_argument(fmt::format("bench_ops: block type {} not benchmarked", type));
  const ops::GgmlBlockShape b = *ops::ggml_gpu_block(type);
  return {b.elems, b.bytes, name};
}

void BM_GemvGgml(benchmark::State& st) {
  const int64_t type = st.range(0), K = st.range(1), N = st.range(2), M = st.range(3);
  const bool blocks = st.range(4) != 0;
  const uint32_t int8 = st.range(4) == 2 ? 2 : st.range(4) == 3 ? 1 : 0;
  const int64_t be = bench_block(type).elems, bb = bench_block(type).bytes;
  const uint64_t bytes = uint64_t(N * (K / be) * bb);
  std::vector<uint32_t> words = block_words(bytes);
  webgpu::Tuning tun = dev().tuning();
  tun.ggml_gemv_blocks = blocks;
  tun.ggml_gemv_int8 = int8;
  webgpu::ScopedTuning scoped(dev(), tun);
  Graph g;
  ValueId x = g.input("x", DType::F32, {M, K});
  const int64_t nw = int64_t(words.size());
  ValueId w = g.constant("w", DType::U32, {nw}, ConstantData::from_vector(std::move(words)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  g.op("wgrt.linear_ggml.default", {x, w, g.int_value(type), g.int_value(N), g.none(), out}, "gemv_ggml");
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec<float>(size_t(M * K), -1.0f, 1.0f);
  exe->set_input(x, {M, K}, std::span<const float>(xv));
  double sec = run(st, *exe);
  set_counters(st, sec, double(bytes + uint64_t(M * K * 4 + M * N * 4)), 2.0 * double(M * N * K));
  st.SetLabel(fmt::format("{} M {} {}", bench_block(type).name, M, int8 == 2 ? "gemv_kq int8 x staged" : int8 ? "gemv_kq int8 x pass" : blocks ? "gemv_kq" : "generic"));
}

// The fused gate/up GEMV of a block-format layer (wgrt.linear_ggml_fused: RMSNorm of x, [gate; up] of 2 * N rows,
// SwiGLU) with the policy's fused_gemv on (one gemv_kq dispatch) or off (rms_norm + GEMV + swiglu): type, K, N
// (outputs), M, fused_gemv, x (the policy's ggml_gemv_int8: 0 f32, 1 int8 pass, 2 int8 staged). Counted bytes: the weights, x, and the outputs.
void BM_GemvGgmlFused(benchmark::State& st) {
  const int64_t type = st.range(0), K = st.range(1), N = 2 * st.range(2), M = st.range(3);
  const int64_t be = bench_block(type).elems, bb = bench_block(type).bytes;
  const uint64_t bytes = uint64_t(N * (K / be) * bb);
  std::vector<uint32_t> words = block_words(bytes);
  webgpu::Tuning tun = dev().tuning();
  tun.fused_gemv = st.range(4) != 0;
  tun.ggml_gemv_int8 = uint32_t(st.range(5));
  webgpu::ScopedTuning scoped(dev(), tun);
  Graph g;
  ValueId x = g.input("x", DType::F32, {M, K});
  const int64_t nw = int64_t(words.size());
  ValueId w = g.constant("w", DType::U32, {nw}, ConstantData::from_vector(std::move(words)));
  ValueId norm = g.constant("nw", DType::F32, {K}, ConstantData::from_vector(random_vec<float>(size_t(K), 0.5f, 1.5f)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  g.op("wgrt.linear_ggml_fused.default", {x, w, g.int_value(type), g.int_value(N), g.none(), norm, g.real(1e-5), g.none(),
                                          g.int_value(1), out}, "gate_up");
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec<float>(size_t(M * K), -1.0f, 1.0f);
  exe->set_input(x, {M, K}, std::span<const float>(xv));
  double sec = run(st, *exe);
  set_counters(st, sec, double(bytes + uint64_t(M * K * 4 + M * N * 2)), 2.0 * double(M * N * K));
  st.SetLabel(fmt::format("{} M {} {}{}", bench_block(type).name, M,
                          st.range(4) ? "fused" : "norm+gemv+glu", st.range(5) == 2 ? " int8 x staged" : st.range(5) ? " int8 x pass" : ""));
}

// The fused q4gsw gate/up GEMV (wgrt.linear_q4gsw_fused: RMSNorm of x, [gate; up] of 2 * N rows, SwiGLU; the
// policy's fused_gemv, one dispatch), M = 1: the reference the block types' BM_GemvGgmlFused rows compare with at
// the same K and N (Q4_0 files take it). Args: K, N (outputs). Counted bytes: codes, f32 scales, x and the outputs.
void BM_GemvQ4Fused(benchmark::State& st) {
  const int64_t K = st.range(0), N = 2 * st.range(1), G = 32;
  Graph g;
  ValueId x = g.input("x", DType::F32, {1, K});
  ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(random_vec<uint32_t>(size_t(N * K / 8), 0, 0)));
  ValueId sc = g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(random_vec<float>(size_t(N * K / G), 0.001f, 0.01f)));
  ValueId norm = g.constant("nw", DType::F32, {K}, ConstantData::from_vector(random_vec<float>(size_t(K), 0.5f, 1.5f)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  g.op("wgrt.linear_q4gsw_fused.default", {x, qw, sc, g.int_value(G), g.none(), norm, g.real(1e-5), g.none(), g.int_value(1), out},
       "gate_up_q4");
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec<float>(size_t(K), -1.0f, 1.0f);
  exe->set_input(x, {1, K}, std::span<const float>(xv));
  double sec = run(st, *exe);
  set_counters(st, sec, double(N * K / 2 + N * K / G * 4 + K * 4 + N * 2), 2.0 * double(N * K));
  st.SetLabel(fmt::format("q4gsw M 1 fused, {} dispatches", exe->dispatch_count()));
}

// The block-format linear at prefill rows (M > gemv_max_rows): the same graph, on the GEMM route.
void BM_GemmGgml(benchmark::State& st) { BM_GemvGgml(st); }

void BM_GemvF32(benchmark::State& st) {
  const int64_t K = st.range(0), N = st.range(1);
  Graph g;
  ValueId x = g.input("x", DType::F32, {1, K});
  ValueId w = g.constant("w", DType::F32, {N, K}, ConstantData::from_vector(random_vec<float>(size_t(N * K), -1.0f, 1.0f)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  g.op("aten.linear.default", {x, w, g.none(), out}, "gemv_f32");
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec<float>(size_t(K), -1.0f, 1.0f);
  exe->set_input(x, {1, K}, std::span<const float>(xv));
  double sec = run(st, *exe);
  set_counters(st, sec, double(N * K * 4 + K * 4 + N * 4), 2.0 * double(N * K));
}

void BM_Gemm(benchmark::State& st) {
  const int64_t M = st.range(0), K = st.range(1), N = st.range(2);
  const bool q4 = st.range(3) != 0;
  const int64_t G = 32;
  Graph g;
  ValueId x = g.input("x", DType::F32, {M, K});
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  double wbytes = 0;
  if (q4) {
    ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(random_vec<uint32_t>(size_t(N * K / 8), 0, 0)));
    ValueId sc = g.constant("scales", DType::F32, {N, K / G}, ConstantData::from_vector(random_vec<float>(size_t(N * K / G), 0.001f, 0.01f)));
    g.op("et_vk.linear_q4gsw.default", {x, qw, sc, g.int_value(G), g.none(), out}, "gemm_q4");
    wbytes = double(N * K / 2 + N * K / G * 4);
  } else {
    ValueId w = g.constant("w", DType::F32, {N, K}, ConstantData::from_vector(random_vec<float>(size_t(N * K), -1.0f, 1.0f)));
    g.op("aten.linear.default", {x, w, g.none(), out}, "gemm_f32");
    wbytes = double(N * K * 4);
  }
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec<float>(size_t(M * K), -1.0f, 1.0f);
  exe->set_input(x, {M, K}, std::span<const float>(xv));
  double sec = run(st, *exe);
  set_counters(st, sec, wbytes + double(M * K * 4 + M * N * 4), 2.0 * double(M * N * K));
  st.SetLabel(q4 ? "q4gsw" : "f32");
}

// The int8 prefill GEMMs by variant, at the 1B's prefill shapes: kernel 0 = q4gsw (gemm_mmq.wgsl, Q4_0 files),
// 1 = Q4_K blocks (gemm_mmq_ggml.wgsl, Q4_K_M files); variant = an index into kMmqVariants (the tile rule or a
// forced tile, the main loop's pipeline PF, split K). Manual time = the GEMM kernel's GPU time alone (with split K
// its reduce pass too; the quantize pass is reported as q8_us); TOPS = 2 M N K int8 operations per second / 1e12.
struct MmqVariant {
  const char* label;
  std::optional<webgpu::MmqTile> tile;  // forced; none = the policy's rule
  uint32_t pf, split;                   // gemm_mmq_pipeline, gemm_mmq_split_target (q4gsw only)
};
const MmqVariant kMmqVariants[] = {
    {"rule pf0", std::nullopt, 0, 0},
    {"rule pf1", std::nullopt, 1, 0},
    {"rule pf1 split 1024", std::nullopt, 1, 1024},
    {"64x64 kb4 pf1", webgpu::MmqTile{64, 64, 4, 1}, 1, 0},
    {"128x128 pf1", webgpu::MmqTile{128, 128, 2, 1}, 1, 0},
    {"32x64 wg128 pf1", webgpu::MmqTile{32, 64, 2, 1, 0, 128}, 1, 0},
    {"64x64 wg128 pf1", webgpu::MmqTile{64, 64, 2, 1, 0, 128}, 1, 0},
    {"64x64 wg128 pf0", webgpu::MmqTile{64, 64, 2, 1, 0, 128}, 0, 0},
};

void BM_GemmMmq(benchmark::State& st) {
  const int64_t M = st.range(0), K = st.range(1), N = st.range(2), kernel = st.range(3);
  const MmqVariant& v = kMmqVariants[st.range(4)];
  if (!dev().has_packed_dot() || (kernel == 1 && v.split)) {
    st.SkipWithError(kernel ? "split K: q4gsw only" : "no packed int8 dot products");
    return;
  }
  webgpu::Tuning tun = dev().tuning();
  tun.gemm.mmq_min_tiles = tun.gemm.mmq_ggml_min_tiles = 1;
  tun.gemm_mmq_forced = v.tile;
  tun.gemm_mmq_pipeline = v.pf;
  tun.gemm_mmq_split_target = v.split;
  webgpu::ScopedTuning scoped(dev(), tun);
  Graph g;
  ValueId x = g.input("x", DType::F32, {M, K});
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  if (kernel == 0) {
    ValueId qw = g.constant("qweight", DType::U32, {N, K / 8}, ConstantData::from_vector(random_vec<uint32_t>(size_t(N * K / 8), 0, 0)));
    ValueId sc = g.constant("scales", DType::F32, {N, K / 32}, ConstantData::from_vector(random_vec<float>(size_t(N * K / 32), 0.001f, 0.01f)));
    g.op("et_vk.linear_q4gsw.default", {x, qw, sc, g.int_value(32), g.none(), out}, "gemm_q4");
  } else {
    std::vector<uint32_t> words = block_words(uint64_t(N * (K / 256) * 144));
    const int64_t nw = int64_t(words.size());
    ValueId w = g.constant("w", DType::U32, {nw}, ConstantData::from_vector(std::move(words)));
    g.op("wgrt.linear_ggml.default", {x, w, g.int_value(12), g.int_value(N), g.none(), out}, "gemm_q4k");
  }
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto xv = random_vec<float>(size_t(M * K), -1.0f, 1.0f);
  exe->set_input(x, {M, K}, std::span<const float>(xv));
  exe->enable_profiling(true);
  exe->execute();  // warm-up
  exe->profiler()->reset();
  auto kernel_ns = [&](const char* name) {
    double t = 0;
    for (const auto& [k, s] : exe->profiler()->stats())
      if (k.find(name) != std::string::npos) t += s.total_ns;
    return t;
  };
  double gemm_total = 0, q8_total = 0;
  for (auto _ : st) {
    const double g0 = kernel_ns("gemm_mmq") + kernel_ns("splitk_reduce"), q0 = kernel_ns("quantize_q8");
    exe->execute();
    const double t = (kernel_ns("gemm_mmq") + kernel_ns("splitk_reduce") - g0) * 1e-9;
    st.SetIterationTime(t);
    gemm_total += t;
    q8_total += (kernel_ns("quantize_q8") - q0) * 1e-9;
  }
  const double n = double(std::max<int64_t>(st.iterations(), 1)), sec = gemm_total / n;
  st.counters["TOPS"] = sec > 0 ? 2.0 * double(M * N * K) / sec / 1e12 : 0;
  st.counters["q8_us"] = q8_total / n * 1e6;
  const webgpu::MmqTile t = tun.gemm_mmq_tile(M, N);
  st.SetLabel(fmt::format("{} {} ({}x{} kb {} pf {} wg {}; {} dispatches)", kernel ? "Q4_K" : "q4gsw", v.label, t.tm, t.tn,
                          t.kb, t.pf, t.wg, exe->dispatch_count()));
}

// aten.addmm (bias [N] + a [M, K] @ b [K, N], B in its natural [K, N] layout): the f32 GEMM at the ViT's moderate M
// (the ONNX importer's MatMul + bias Add); the kernel and split-K are the tuning policy's (WGRT_GEMM_BIG,
// WGRT_GEMM_SPLITK sweep them).
void BM_Addmm(benchmark::State& st) {
  const int64_t M = st.range(0), K = st.range(1), N = st.range(2);
  Graph g;
  ValueId a = g.input("a", DType::F32, {M, K});
  ValueId w = g.constant("w", DType::F32, {K, N}, ConstantData::from_vector(random_vec<float>(size_t(N * K), -1.0f, 1.0f)));
  ValueId bias = g.constant("bias", DType::F32, {N}, ConstantData::from_vector(random_vec<float>(size_t(N), -1.0f, 1.0f)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.output(out);
  g.op("aten.addmm.default", {bias, a, w, g.real(1.0), g.real(1.0), out}, "addmm");
  auto exe = ExecutableGraph::build(std::move(g), dev());
  auto av = random_vec<float>(size_t(M * K), -1.0f, 1.0f);
  exe->set_input(a, {M, K}, std::span<const float>(av));
  double sec = run(st, *exe);
  set_counters(st, sec, double(N * K * 4 + M * K * 4 + M * N * 4), 2.0 * double(M * N * K));
}

}  // namespace

// The GEMVs run first. On the H200 a large buffer measured 2-3x slower in some processes when it was
// allocated after other benchmarks had run in the same process (2048x128256 GEMV 189-210 us instead of 80,
// also the 164 MB read and the 131 MB copy); bench/run_h200.sh therefore also runs each GEMV with its references
// in a fresh process (bench/README.md).
BENCHMARK(BM_GemvQ4)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->Args({2048, 2048})->Args({2048, 8192})->Args({8192, 2048})->Args({2048, 128256});
// References, filled with random data like the weights: a vec4 copy of each GEMV's code bytes and a plain
// read of each GEMV's total bytes.
BENCHMARK(BM_Copy)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->Arg(2048 * 2048 / 2)->Arg(2048 * 8192 / 2)->Arg(int64_t(2048) * 128256 / 2);
BENCHMARK(BM_Read)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->Arg(2048 * 2048 * 5 / 8)->Arg(2048 * 8192 * 5 / 8)->Arg(int64_t(2048) * 128256 * 5 / 8);
BENCHMARK(BM_GemvGgml)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->ArgsProduct({{12, 14, 8}, {2048}, {8192}, {1, 2, 4, 8}, {3, 2, 1, 0}})
    ->ArgsProduct({{12, 14}, {8192}, {2048}, {1}, {2, 1}})  // ffn_down (several chunks per k lane)
    ->ArgsProduct({{14, 8}, {2048}, {128256}, {1}, {2, 1}})  // the LM heads of llama.cpp's Q4_K_M / Q4_0 1B files
    ->ArgsProduct({{6, 8}, {896}, {896, 128}, {1}, {2, 0}})    // Qwen2-0.5B's q / o and k / v (Q4_K_M's fallbacks)
    ->ArgsProduct({{12, 14}, {4864}, {896}, {1}, {2}});        // Qwen2-0.5B's ffn_down
BENCHMARK(BM_GemvGgmlFused)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->ArgsProduct({{12, 14}, {2048}, {8192}, {1, 8}, {1, 0}, {2, 1, 0}})
    ->ArgsProduct({{6}, {896}, {4864}, {1}, {1}, {2, 0}});  // Qwen2-0.5B's gate/up in its Q4_K_M file (Q5_0)
BENCHMARK(BM_GemvQ4Fused)->UseManualTime()->Unit(benchmark::kMicrosecond)->Args({896, 4864})->Args({2048, 8192});
BENCHMARK(BM_GemvF32)->UseManualTime()->Unit(benchmark::kMicrosecond)->Args({2048, 2048});
BENCHMARK(BM_Gemm)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->Args({128, 2048, 2048, 0})->Args({512, 2048, 2048, 0})->Args({128, 2048, 2048, 1})->Args({512, 2048, 2048, 1})
    ->Args({2048, 2048, 2048, 1})->Args({512, 2048, 8192, 1})->Args({512, 8192, 2048, 1})->Args({512, 896, 128, 1})
    ->Args({512, 2048, 512, 1});
BENCHMARK(BM_GemmGgml)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->ArgsProduct({{12, 14}, {2048}, {2048, 512, 8192}, {512}, {1}});
// The 1B's prefill GEMMs (K 2048: N 2048 o-proj, 512 k/v, 8192 gate/up; K 8192 N 2048 down) at 512 and 2048
// rows, both int8 kernels, every variant of kMmqVariants.
BENCHMARK(BM_GemmMmq)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->ArgsProduct({{512, 2048}, {2048}, {2048, 512, 8192}, {0, 1}, {0, 1, 2, 3, 4, 5, 6, 7}})
    ->ArgsProduct({{512, 2048}, {8192}, {2048}, {0, 1}, {0, 1, 2, 3, 4, 5, 6, 7}});
// ViT-B/16's linear layers at batch 1 and 8 (197 and 1576 tokens): qkv, attention out, MLP up, MLP down.
BENCHMARK(BM_Addmm)->UseManualTime()->Unit(benchmark::kMicrosecond)
    ->ArgsProduct({{197, 1576}, {768}, {2304, 768, 3072}})->Args({197, 3072, 768})->Args({1576, 3072, 768});

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const auto& d = dev();
  fmt::print("adapter: {} ({}), maxStorageBufferBindingSize {} B, features: {}\n", d.adapter_info().description,
             d.adapter_info().backend, d.limits().maxStorageBufferBindingSize, d.features_string());
  benchmark::RunSpecifiedBenchmarks();
  // Each GEMV against the references nearest its size: the copy of its code bytes and the read of its total
  // bytes (references are capped at the binding limit, e.g. 128 MiB on lavapipe).
  auto nearest = [](const std::map<uint64_t, double>& m, uint64_t bytes) {
    std::pair<uint64_t, double> best{0, 0};
    double best_d = 1e300;
    for (const auto& [b, gbps] : m) {
      double d = std::abs(std::log(double(b) / double(bytes)));
      if (d < best_d) best_d = d, best = {b, gbps};
    }
    return best;
  };
  for (const auto& [name, r] : summary().gemv) {
    std::string line = fmt::format("{:<28} {:7.1f} GB/s:", name, r.gbps);
    auto ref = [&](const char* what, const std::map<uint64_t, double>& m, uint64_t bytes) {
      auto [b, g] = nearest(m, bytes);
      if (g > 0) line += fmt::format(" {:5.1f}% of the {} of {:.1f} MB ({:.0f} GB/s);", 100.0 * r.gbps / g, what, double(b) / 1e6, g);
    };
    ref("vec4 copy (read + write)", summary().copy, r.code_bytes);
    ref("read", summary().read, r.total_bytes);
    if (line.back() == ';') line.pop_back();
    fmt::print("{}\n", line);
  }
  benchmark::Shutdown();
  return 0;
}
