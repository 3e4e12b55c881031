// The shared tiled GEMM kernel (ops/linear/gemm.wgsl): parameter block and helpers for ops that reuse it
// (linear, linear_q4gsw; later mm/bmm/addmm).
//
//   C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n)       (bias only if has_bias)
// for z < batch, m < M, n < N. Every operand is addressed by an element offset and element strides, so
// transposed, batched and broadcast (stride 0) operands need no copies. Bindings:
//   0 a (f32, read), 1 b (f32 or q4gsw qweight words, read, bound as u32), 2 scales (f32, read; q4 only, any
//   tensor otherwise), 3 bias (f32, read; any tensor when has_bias = 0), 4 c (f32, read_write), 5 params.
// Tiles: 64x64 outputs per workgroup; grid (ceil(N/64), ceil(M/64), batch), each dim checked against the
// device limit (gemm_grid throws InvalidArgument naming the sizes).
#pragma once
#include <cstdint>

#include "util/dispatch_grid.h"
#include "webgpu/pipeline_cache.h"

namespace wgrt::ops {

struct GemmParams {
  uint32_t M = 0, N = 0, K = 0, batch = 1;
  uint32_t a_off = 0, a_sb = 0, a_sm = 0, a_sk = 1;
  uint32_t b_off = 0, b_sb = 0, b_sk = 1, b_sn = 0;  // q4: b_sn = row stride in words (K/8)
  uint32_t c_off = 0, c_sb = 0, c_sm = 0, c_sn = 1;
  uint32_t bias_off = 0, bias_sb = 0, bias_sm = 0, bias_sn = 1;
  uint32_t has_bias = 0, group = 32, s_sn = 0, pad0 = 0;  // q4: group size, scales row stride (K/G)
  float alpha = 1.0f, beta = 1.0f;
  uint32_t pad1 = 0, pad2 = 0;
};
static_assert(sizeof(GemmParams) == 112);

constexpr uint32_t kGemmTile = 64;

// q4: B is a q4gsw weight (K % 32 == 0). b_k_fast: B's k stride is the small one (weights [N, K]).
webgpu::KernelSpec gemm_kernel(bool q4, bool b_k_fast = true);

// Grid for p; throws InvalidArgument if a dimension exceeds max_per_dim.
Grid gemm_grid(const GemmParams& p, uint32_t max_per_dim);

}  // namespace wgrt::ops
