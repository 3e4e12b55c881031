// f32 GEMV (decode, M = 1): out[n_base + n] = sum_k x[k] * w[n][k] (+ bias[n_base + n]) for n < N, with w
// [N, K] row-major (nn.Linear layout) bound from row 0 of this dispatch's slice; K % 4 == 0 (vec4 loads;
// other K use the GEMM route).
//
// Workgroup of 256 invocations = 8 row lanes x 32 k lanes; each invocation owns RPT rows (wg*8*RPT + r + 8*i)
// and walks the row in vec4 steps strided by 32 lanes (512 contiguous bytes per row lane and step); the x
// vec4 of a step is reused for the RPT rows. Partial sums are reduced in workgroup memory (one barrier).
// Grid: 1-D, folded (linear_workgroup).
#include "ops/common/index.wgsl"
#include "ops/linear/gemv_params.wgsl"

override RPT : u32 = 4u;  // rows per invocation, 1..4
const ROW_LANES = 8u;
const K_LANES = 32u;
override ROWS_PER_WG : u32 = ROW_LANES * RPT;  // read by the host for the grid

var<private> m_row : u32;  // row of x / out (M > 1 runs one grid layer per row)

@group(0) @binding(0) var<storage, read> x : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w : array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : Params;

var<workgroup> part : array<f32, ROW_LANES * RPT * (K_LANES + 1u)>;  // [8 * RPT rows][33]

@compute @workgroup_size(ROW_LANES * K_LANES)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  m_row = wid.z;
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  let r = lid / K_LANES;
  let t = lid % K_LANES;
  let rows = ROW_LANES * RPT;
  let nv = p.K / 4u;
  var row_off : array<u32, 4>;
  for (var i = 0u; i < RPT; i++) {
    row_off[i] = min(wg * rows + r + ROW_LANES * i, p.N - 1u) * nv;
  }
  var acc = vec4<f32>(0.0);
  for (var v = t; v < nv; v += K_LANES) {
    let xv = x[m_row * (p.K / 4u) + v];
    for (var i = 0u; i < RPT; i++) {
      acc[i] += dot(w[row_off[i] + v], xv);
    }
  }
  for (var i = 0u; i < RPT; i++) {
    part[(r + ROW_LANES * i) * (K_LANES + 1u) + t] = acc[i];
  }
  workgroupBarrier();
  if (lid < rows) {
    let n = wg * rows + lid;
    if (n < p.N) {
      var s = 0.0;
      for (var j = 0u; j < K_LANES; j++) {
        s += part[lid * (K_LANES + 1u) + j];
      }
      if (p.has_bias != 0u) {
        s += bias[p.n_base + n];
      }
      out[m_row * p.out_stride + p.n_base + n] = s;
    }
  }
}
