// Activation quantization for the int8 prefill GEMM (gemm_mmq.wgsl): x [M, K] f32 (row-major, K % 32 == 0) in
// blocks of 32 consecutive k per row, each block to 32 signed bytes q and a scale d:
//   d = max_block |x| / 127,  q[k] = round(x[k] * (127 / max_block |x|)) in -127..127 (round half to even; all 0
// where d == 0), so |x[k] - q[k] * d| <= d / 2 (+ the f32 roundings of the scale factors, a few 2^-24 of |x[k]|). This is llama.cpp's
// q8_1 quantization (ggml-quants.c quantize_row_q8_1), written for this layout. A block holding an inf or NaN
// gets a NaN scale (so every output that reads it is NaN, as in f32 arithmetic).
// Outputs (one invocation per block, block b = m * (K / 32) + kb):
//   xq: 8 u32 per block at [2b], [2b + 1] (vec4 each); u32 j = 2w + parity holds the bytes of k = 8w + parity +
//       {0, 2, 4, 6} (low byte first), the order in which the GEMM expands the nibbles of a q4gsw word
//       (word & 0x0F0F0F0F are the codes of k = 8w + 0, 2, 4, 6 and (word >> 4) & 0x0F0F0F0F those of 8w + 1, 3,
//       5, 7), so both operands of a dot4I8Packed hold the same k.
//       With override ORDER = 1 (gemm_mmq_ggml.wgsl) u32 j holds k = 4j .. 4j + 3 instead (the natural order).
//   xd: vec2(d, d * sum_k q[k]) per block (the block sum serves weight formats with a per-block minimum).
struct QParams {
  blocks : u32,  // M * K / 32
  _pad0 : u32,
  _pad1 : u32,
  _pad2 : u32,
}

@group(0) @binding(0) var<storage, read> x : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> xq : array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> xd : array<vec2<f32>>;
@group(0) @binding(3) var<uniform> p : QParams;

#include "ops/common/index.wgsl"
#include "ops/linear/quantize_q8_block.wgsl"

override ORDER : u32 = 0u;  // 0: the q4gsw nibble order; 1: natural (k = 4j .. 4j + 3 in u32 j)

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let blk = linear_workgroup(wid, nwg) * 64u + lid;
  if (blk >= p.blocks) {
    return;
  }
  var v : array<vec4<f32>, 8>;
  for (var i = 0u; i < 8u; i++) {
    v[i] = x[blk * 8u + i];
  }
  let q = q8_block(v, ORDER);
  let words = q.words;
  xq[2u * blk] = vec4<u32>(words[0], words[1], words[2], words[3]);
  xq[2u * blk + 1u] = vec4<u32>(words[4], words[5], words[6], words[7]);
  xd[blk] = q.s;
}
