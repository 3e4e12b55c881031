// GEMV over weights in a ggml block format (ops/linear/ggml_decode.wgsl, override WTYPE), decoded in the
// kernel: out[m][n_base + n] = sum_k x[m][k] * W[n][k] (+ bias[n_base + n]) for n < N, m < M, W's row n being
// the p.row_bytes bytes at n * p.row_bytes of this dispatch's slice of w. Any M: grid layer z takes rows
// 8z .. 8z+7 of x, so each decoded weight serves up to 8 rows (prefill reads the weights M/8 times).
//
// Workgroup of 256 invocations = 8 row lanes x 32 k lanes; a row lane owns one row of W, its k lanes walk the
// row 8 consecutive elements at a time (a run of 8 never crosses a sub-block), 256 elements per step, and the
// partial sums are reduced in workgroup memory. Grid: 1-D, folded (linear_workgroup), times ceil(M / 8) layers.
#include "ops/common/index.wgsl"
#include "ops/linear/gemv_ggml_params.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> w : array<u32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : Params;

fn ggml_word(i : u32) -> u32 { return w[i]; }
#include "ops/linear/ggml_decode.wgsl"

var<workgroup> part : array<f32, 2112>;  // [8 rows of x][8 rows of W][33]

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  let m0 = wid.z * 8u;
  let mn = min(8u, p.M - m0);
  let r = lid / 32u;
  let t = lid % 32u;
  let n = min(wg * 8u + r, p.N - 1u);
  let row = n * p.row_bytes;
  let be = ggml_block_elems();
  let bb = ggml_block_bytes();
  var acc : array<f32, 8>;
  for (var k0 = t * 8u; k0 < p.K; k0 += 256u) {
    let wv = ggml_run8(row + (k0 / be) * bb, k0 % be);
    let ne = min(8u, p.K - k0);
    for (var mm = 0u; mm < mn; mm++) {
      let xo = (m0 + mm) * p.K + k0;
      var s = 0.0;
      for (var e = 0u; e < ne; e++) {
        s += x[xo + e] * wv[e];
      }
      acc[mm] += s;
    }
  }
  for (var mm = 0u; mm < 8u; mm++) {
    part[(mm * 8u + r) * 33u + t] = acc[mm];
  }
  workgroupBarrier();
  if (lid < 64u) {
    let mm = lid / 8u;
    let nn = wg * 8u + lid % 8u;
    if (mm < mn && nn < p.N) {
      var s = 0.0;
      for (var j = 0u; j < 32u; j++) {
        s += part[lid * 33u + j];
      }
      if (p.has_bias != 0u) {
        s += bias[p.n_base + nn];
      }
      out[(m0 + mm) * p.out_stride + p.n_base + nn] = s;
    }
  }
}
