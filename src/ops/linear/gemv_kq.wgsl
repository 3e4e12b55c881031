// Layout-aware GEMV over weights in a ggml block format (override WTYPE: 3 Q4_1, 6 Q5_0, 8 Q8_0, 12 Q4_K,
// 13 Q5_K, 14 Q6_K), for MB rows of x at once: out[m][n_base + n] = sum_k x[m][k] * W[n][k] (+ bias[n_base + n])
// for n < N, m < M, W's row n being the p.row_bytes bytes at n * p.row_bytes of this dispatch's slice of w (the
// file's raw blocks, src/formats/ggml_blocks.h). Same contract and bindings as gemv_ggml.wgsl; what differs is
// the unit of work.
//
// Each invocation owns whole pieces of a block (a "chunk"): for the K-quants a quarter of a 256-element block
// (Q4_K / Q5_K: the sub-block pair that shares 32 bytes of codes, 64 contiguous elements; Q6_K: half of one
// 128-element half, 4 runs of 16 elements, one scale each), for the 32-element formats one whole block. The
// chunk's codes are read as whole u32 words (2-byte aligned formats funnel two words), its scales and mins are
// decoded once, and every 4 codes become one vec4 of weights (w = d * sc * q - dmin * m), which is dotted with
// the matching vec4 of x of each of the MB rows of this grid layer: the decode is paid once per weight, not
// once per row of x, so the cost stays about flat in MB until the FMAs dominate. The Q4_K / Q5_K f32 chunk
// dots the raw codes instead and applies d * sc and dmin * m * sum(x) once per sub-block (lavapipe: 0.83x the
// time; the same form was slower for Q6_K and the 32-element types, BENCHMARKS.md).
//
// Workgroup of TK * TR invocations = TR (8) row lanes x TK (override: 32, or 16 on CPU adapters) k lanes; row lane r
// owns the RPT rows wg * 8 RPT + r + 8 i (i < RPT) of W, whose chunks share each vec4 load of x; its k lanes take
// chunks t, t + TK, ...; the partial sums (MB * RPT per invocation) are reduced in workgroup memory (MB * RPT <= 16,
// so the buffer fits 16 KiB and the MB * 8 * RPT row sums take one invocation each).
// STREAM 1 (CPU adapters, one row of x, f32 x): each chunk loads its x once and the RPT rows of W are
// decoded one after another against it (chunk_*_stream in gemv_kq_body.wgsl), RPT up to 16.
// Grid: 1-D, folded (linear_workgroup), times ceil(M / MB) layers in z; layer z takes rows z * MB .. of x
// (rows past M read row M - 1 and are not stored). x is read as vec4 (K is a multiple of 32 for every WTYPE).
// A stack of two types (override WTYPE2 != WTYPE, wgrt.linear_ggml's two-part weights: a Q4_K_M layer's [Wq; Wk]
// in Q4_K and Wv in Q6_K): workgroups from p.wg_split take rows p.n_split .. of WTYPE2, whose row n starts at byte
// p.off2 + (n - p.n_split) * p.row_bytes2 (part A's rows are a whole number of workgroups, so each workgroup
// decodes one type: the branch is uniform per workgroup); one dispatch instead of one per type.
// Values: equal to the C++ decoders' (src/formats) up to f32 rounding of the scale products and the summation
// order (the GPU may fuse multiply-adds).
// Fusions (wgrt.linear_ggml_fused, overrides NORM / EPI of gemv_q4_fuse.wgsl, whose hooks this kernel calls):
// NORM 1 RMS-normalizes each of the layer's MB rows of x inline (gemv_norm_begin per row; x * nw is dotted with
// the weights and the row's 1 / rms scales the sum), EPI 1 adds the residual, EPI 2 / 3 pair the gate and up
// rows of [gate; up] in one workgroup (gemv_row) and store act(gate) * up (gemv_store, once per row of x).
// Int8 activations (override XQ 1, wgrt.linear_ggml's int8 GEMV route): the chunks of gemv_kq_i8.wgsl read x
// quantized per 32-k block (bindings 7, 8) and multiply the codes with dot4I8Packed; the grid, row ownership,
// reduction and epilogues are the same. XQ 1: NORM must be 0 (the op quantizes the normalized x); XQ 2: the
// workgroup quantizes x itself after the norm (stage_i8), so NORM and the epilogues stay in this dispatch.
#include "ops/linear/gemv_kq_body.wgsl"

@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(6) var<storage, read> res : array<f32>;       // EPI 1: the residual [M, out_stride]

#include "ops/linear/gemv_q4_fuse.wgsl"

@compute @workgroup_size(TK * TR)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  kq_partials(wg, wid.z, lid);
  let m0 = wid.z * MB;
  let mn = min(MB, p.M - m0);
  let rows = TR * RPT;  // rows of W per workgroup
  if (EPI == 0u) {
    if (lid < MB * rows) {
      let m = lid / rows;
      let nn = wg * rows + lid % rows;
      if (m < mn && nn < p.N) {
        var s = 0.0;
        for (var j = 0u; j < TK; j++) {
          s += part[lid * (TK + PAD) + j];
        }
        if (p.has_bias != 0u) {
          s += bias[p.n_base + nn];
        }
        out[(m0 + m) * p.out_stride + p.n_base + nn] = s;
      }
    }
    return;
  }
  // The epilogues store through gemv_store, one row of x at a time: the row sums first move to part[m * rows +
  // slot] (gemv_store's GLU reuses part[0 .. rows), which row 0 has read by then).
  kq_row_sums(lid);
  for (var m = 0u; m < mn; m++) {
    m_row = m0 + m;
    gemv_store(lid, wg, select(0.0, part[m * rows + min(lid, rows - 1u)], lid < rows));
  }
}
