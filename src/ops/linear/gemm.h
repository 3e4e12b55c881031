// The shared GEMM kernels: parameter block, kernel choice and grid for ops that reuse them (linear,
// linear_q4gsw prefill, mm/bmm/addmm, encoder SDPA).
//
//   C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n)       (bias only if has_bias)
// for z < batch, m < M, n < N. Every operand is addressed by an element offset and element strides, so
// transposed, batched and broadcast (stride 0) operands need no copies. Bindings (both kernels):
//   0 a (f32, read), 1 b (f32 or q4gsw qweight words, read, bound as u32), 2 scales (f32, read; q4 only, any
//   tensor otherwise), 3 bias (f32, read; any tensor when has_bias = 0), 4 c (f32, read_write), 5 params.
//
// Two kernels (GemmConfig::kind):
//   Tiled (ops/linear/gemm.wgsl, for GPUs): 64x64 outputs per workgroup of 256 invocations (4x4 each), K in
//     slices of 32 staged in workgroup memory. Grid (ceil(N/64), ceil(M/64), batch).
//   Cpu (ops/linear/gemm_cpu.wgsl, for CPU adapters such as lavapipe): no workgroup memory or barriers; a
//     workgroup owns 4*rq rows x wg columns, one column and 4*rq accumulators per invocation, A loads uniform.
//     Grid (ceil(M/(4*rq)), ceil(N/wg), batch).
// Which kernel, and the Cpu kernel's shape, is the device's tuning policy's choice (webgpu/tuning.h: Cpu on
// CPU adapters with subgroups of >= 8 lanes, else Tiled; WGRT_GEMM overrides it). The output tile of each
// kernel is read from its WGSL (TILE_M, TILE_N), so gemm_config reflects the kernel once per build.
// Any M, N, K works (out-of-range rows/cols are not written); q4 requires K % group == 0 (q4gsw_shape_ok).
// Grids are checked against the device limit (gemm_grid throws InvalidArgument naming the sizes).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "graph/uniform_layout.h"
#include "util/dispatch_grid.h"
#include "webgpu/pipeline_cache.h"
#include "webgpu/tuning.h"

namespace wgrt::webgpu {
class Device;
}

namespace wgrt::ops {

struct GemmParams {
  uint32_t M = 0, N = 0, K = 0, batch = 1;
  uint32_t a_off = 0, a_sb = 0, a_sm = 0, a_sk = 1;
  uint32_t b_off = 0, b_sb = 0, b_sk = 1, b_sn = 0;  // q4: b_sn = row stride in words (K/8)
  uint32_t c_off = 0, c_sb = 0, c_sm = 0, c_sn = 1;
  uint32_t bias_off = 0, bias_sb = 0, bias_sm = 0, bias_sn = 1;
  uint32_t has_bias = 0, group = 32, s_sn = 0;  // q4: group size, scales row stride (K/G)
  // Two-level batch (f32 kernels gemm.wgsl, gemm_cpu.wgsl, gemm_big.wgsl): with zdiv > 0, batch entry z is
  // (z / zdiv, z % zdiv) and an operand's batch offset is (z / zdiv) * x_sbo + (z % zdiv) * x_sb (e.g. [B, S, H, D]
  // heads read as batch B * H); zdiv 0: z * x_sb. The bias is always z * bias_sb.
  uint32_t zdiv = 0;
  float alpha = 1.0f, beta = 1.0f;
  uint32_t a_sbo = 0, b_sbo = 0, c_sbo = 0;
  uint32_t k_split = 0;  // int8 GEMMs with split K (batch S > 1): 32-k blocks per split (mmq_splits); 0: all of K
  uint32_t pad1 = 0, pad2 = 0;
};
WGRT_UNIFORM(GemmParams, M, N, K, batch, a_off, a_sb, a_sm, a_sk, b_off, b_sb, b_sk, b_sn, c_off, c_sb, c_sm, c_sn,
             bias_off, bias_sb, bias_sm, bias_sn, has_bias, group, s_sn, zdiv, alpha, beta, a_sbo, b_sbo, c_sbo, k_split,
             pad1, pad2);

// Batched row-major C[b] = A[b] · B[b] with contiguous A [batch, M, K], B [batch, K, N], C [batch, M, N]
// (no bias, alpha 1, beta 1); callers adjust offsets and strides from there.
inline GemmParams contiguous_gemm(uint32_t M, uint32_t N, uint32_t K, uint32_t batch) {
  GemmParams p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.batch = batch;
  p.a_sb = M * K;
  p.a_sm = K;
  p.b_sb = K * N;
  p.b_sk = N;
  p.b_sn = 1;
  p.c_sb = M * N;
  p.c_sm = N;
  return p;
}

// A GEMM kernel choice (the policy's GemmTuning) and its output tile.
struct GemmConfig {
  using Kind = webgpu::GemmTuning::Kind;
  Kind kind = Kind::Tiled;
  uint32_t rq = 4, wg = 64;         // Cpu: row quads and invocations per workgroup (override constants RQ, WG)
  uint32_t tile_m = 0, tile_n = 0;  // outputs per workgroup in m and n (the kernel's TILE_M / TILE_N)
};

// `t` with its tile reflected from the kernel's WGSL. Throws InvalidArgument if the WGSL lacks TILE_M / TILE_N.
GemmConfig gemm_config(const webgpu::GemmTuning& t);
// The device's policy choice (dev.tuning().gemm).
GemmConfig gemm_config(const webgpu::Device& dev);

// q4: B is a q4gsw weight (K % group == 0), its scales f16 pairs (scale_f16) or f32 (q4gsw_scale.wgsl). b_k_fast:
// B's k stride is the small one (weights [N, K]); the Tiled kernel stages B accordingly (the Cpu kernel ignores it).
webgpu::KernelSpec gemm_kernel(const GemmConfig& cfg, bool q4, bool b_k_fast = true, bool scale_f16 = false);

// The register-blocked 128x128 kernel (ops/linear/gemm_big.wgsl; GPUs, linear layers with many output tiles,
// tuning gemm.big_min_tiles): B loaders f32 [N, K] (k fast) or q4gsw (K % 16 == 0, group % 16 == 0).
// b_k_fast false (f32 only): B is [K, N] (n fast, aten.mm / addmm / bmm) and is staged along n.
webgpu::KernelSpec gemm_big_kernel(bool q4, bool scale_f16 = false, bool b_k_fast = true);
GemmConfig gemm_big_config();  // Kind Tiled with the big kernel's tile (for gemm_grid)

// Split-K (GPUs; aten.mm / addmm whose output has fewer workgroups than the policy's
// gemm.split_target_workgroups): the GEMM kernel runs as a batch of S partial products over K / S slices of k
// into scratch [S, M, N] (no alpha, bias or epilogue), then ops/linear/gemm_splitk_reduce.wgsl sums them and
// stores through the epilogue; bindings 0 partials, 1 bias, 2 c, 3 GemmParams (the final ones, with K = S);
// 256 invocations per workgroup, one per output (ResizeContext::set_invocations with M * N).
webgpu::KernelSpec gemm_splitk_reduce_kernel();
// S for an output of `workgroups` workgroups (batch 1) over K: 1 when workgroups >= target (or target 0), else
// the largest divisor S of K with S <= ceil(target / workgroups), S <= kGemmMaxSplits, K / S >= 32 (slices
// long enough to amortize the partial's store) and S * M * N * 4 <= max_partial_bytes (1 if none is > 1).
constexpr uint32_t kGemmMaxSplits = 16;
uint32_t gemm_splits(uint64_t workgroups, uint32_t K, uint64_t MN, uint32_t target, uint64_t max_partial_bytes);

// The int8 prefill GEMM (ops/linear/gemm_mmq.wgsl; GPUs with packed_4x8_integer_dot_product, q4gsw linear
// layers, tuning gemm.mmq_min_tiles): A is x quantized per 32-k block by quantize_q8_kernel() into two scratch
// buffers (q8_bytes(M, K), q8_scale_bytes(M, K)); bindings 0 qA, 1 qweight, 2 scales, 3 bias, 4 c, 5 GemmParams
// (M, N, K, b_sn, s_sn, group, c/bias offsets and strides; batch 1), 6 dA. Requires K % 32 == 0 (q4gsw's G).
// tile: the variant (webgpu::Tuning::gemm_mmq_tile; overrides MH, NH, NB of gemm_mmq_body.wgsl).
webgpu::KernelSpec gemm_mmq_kernel(bool scale_f16 = false, const webgpu::MmqTile& tile = {});  // scale_f16: f16 scale pairs
// Split K for the int8 GEMM (route 3 of the q4 linear, tuning gemm_mmq_split_target): a grid of `workgroups`
// below `target` runs as S partial products over consecutive ranges of `per` 32-k blocks (a multiple of kb, the
// tile's blocks per slice; GemmParams batch = S, k_split = per, c_sb = M * N) into scratch [S, M, N], summed by
// gemm_splitk_reduce_kernel(). S <= kMmqMaxSplits, each range >= 4 slices of kb blocks, S * MN * 4 <=
// max_partial_bytes; {1, 0} when no split applies (target 0, enough workgroups, K too short).
constexpr uint32_t kMmqMaxSplits = 8;
struct MmqSplit {
  uint32_t splits = 1, per = 0;
};
MmqSplit mmq_splits(uint64_t workgroups, uint32_t K, uint32_t kb, uint64_t MN, uint32_t target, uint64_t max_partial_bytes);
GemmConfig gemm_mmq_config(const webgpu::MmqTile& tile = {});  // the MMQ kernels' tile (for gemm_grid)
// Throws InvalidArgument naming WGRT_GEMM_MMQ_TILE when an int8 GEMM kernel made with a (forced) tile needs more
// workgroup memory than the device has (the rule's tiles need <= 22 KiB).
void check_mmq_fits(const webgpu::Device& dev, const webgpu::KernelSpec& spec);
// x f32 [M, K] (K % 32 == 0) -> qA, dA (layouts in ops/linear/quantize_q8.wgsl); bindings 0 x, 1 qA, 2 dA,
// 3 Q8Params; one invocation per block (ResizeContext::set_invocations with M * K / 32).
// natural: the natural byte order (ORDER 1, for gemm_mmq_ggml_kernel) instead of q4gsw's nibble order.
webgpu::KernelSpec quantize_q8_kernel(bool natural = false);
// The int8 prefill GEMM for ggml block formats (ops/linear/gemm_mmq_ggml.wgsl; WTYPE = wtype, one of
// ops::ggml_mmq_type's): A from quantize_q8_kernel(true); bindings 0 qA, 1 raw block words, 2 bias, 3 c,
// 4 GemmParams (M, N, K, b_sn = row bytes, c/bias offsets and strides; batch 1), 5 dA. Same tile as
// gemm_mmq_config(tile). Requires K % the type's block elements == 0.
webgpu::KernelSpec gemm_mmq_ggml_kernel(int64_t wtype, const webgpu::MmqTile& tile = {});
struct Q8Params {
  uint32_t blocks = 0, pad0 = 0, pad1 = 0, pad2 = 0;  // blocks = M * K / 32
};
WGRT_UNIFORM(Q8Params, blocks, pad0, pad1, pad2);
inline uint64_t q8_bytes(uint64_t M, uint64_t K) { return M * K; }              // one signed byte per element
inline uint64_t q8_scale_bytes(uint64_t M, uint64_t K) { return M * K / 32 * 8; }  // vec2<f32> per block

// "<shader>:<entry>" of both GEMM kernels, for the OpDef.kernels of ops that dispatch gemm_kernel.
std::vector<std::string> gemm_kernel_names();

// A B-loader variant of the GEMM kernels (e.g. ops/conv's implicit im2col): `tiled` / `cpu` are WGSL files that
// include ops/linear/gemm_tiled_body.wgsl / gemm_cpu_body.wgsl and define the B loader; cfg picks one.
webgpu::KernelSpec gemm_variant(const GemmConfig& cfg, const char* tiled, const char* cpu);

// Grid for p under cfg; throws InvalidArgument if a dimension exceeds max_per_dim.
Grid gemm_grid(const GemmConfig& cfg, const GemmParams& p, uint32_t max_per_dim);

}  // namespace wgrt::ops
