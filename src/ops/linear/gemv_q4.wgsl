// q4gsw GEMV (decode, M = 1), workgroup-memory route (any device): out[n_base + n] = sum_k x[k] * W[n][k]
// (+ bias[n_base + n]) for n < N, with W in the q4gsw layout (ops/linear/q4gsw.h) bound from row 0 of this
// dispatch's slice. (gemv_q4_sg.wgsl, the subgroup variant, is opt-in: it measured slower on an H200.)
//
// Workgroup of TR row lanes x TK k lanes (shape rule in linear.cpp, e.g. 4 x 64 with RPT 4: 16 rows per
// workgroup); each invocation owns
// RPT rows (rows wg*TR*RPT + r + TR*i) and walks K in vec4<u32> steps (32 codes, 4 words) strided by TK lanes,
// so a row lane reads TK*16 contiguous bytes per step. The 32 x values of a step are loaded once and reused for
// the RPT rows; codes are decoded with q4_dot32 (ops/linear/q4_decode.wgsl), times the group's scale (G >= 32:
// one scale per step). Partial sums are reduced in workgroup memory (gemv_q4_reduce.wgsl). Grid: 1-D, folded
// (linear_workgroup). x is read through gemv_x4 and stored through gemv_store (gemv_q4_fuse.wgsl: the fused
// RMSNorm, residual and GLU of wgrt.linear_q4gsw_fused).
// XV > 0 (GPUs): the workgroup first copies x (XV = K / 4 vec4) into workgroup memory, transposed to [8][K / 32]
// so that the TK lanes of a row, which need the same vec4 slot of consecutive 32-element chunks, read
// consecutive addresses; from global memory those lanes would touch TK different cache lines per load, which
// made the x reads, not the weight stream, the bound on an H200 (bench/README.md).
#include "ops/common/index.wgsl"
#include "ops/linear/gemv_q4_bindings.wgsl"
#include "ops/linear/gemv_q4_reduce.wgsl"
#include "ops/linear/q4_decode.wgsl"

override RPT : u32 = 4u;  // rows per invocation, 1..8
override TK : u32 = 64u;  // k lanes
override TR : u32 = 4u;   // row lanes; RPT <= TK, TK % RPT == 0
override XV : u32 = 0u;   // x staged in workgroup memory: K / 4 vec4 (0: read from the storage buffer)

override ROWS_PER_WG : u32 = TR * RPT;  // read by the host for the grid

var<workgroup> part : array<f32, TR * RPT * (TK + 1u)>;  // [TR * RPT rows][TK + 1] (padded against bank conflicts)
var<workgroup> xs : array<vec4<f32>, max(XV, 1u)>;  // [8][K / 32]: xs[w * K / 32 + v] = x[8 v + w]

@compute @workgroup_size(TK * TR)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  m_row = wid.z;
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  let t = lid % TK;
  let nv = p.K / 32u;              // vec4<u32> per row
  let groups = p.K / p.group;      // scales per row
  let row_idx = gemv_rows(wg, lid);
  gemv_norm_begin(lid);
  if (XV > 0u) {
    for (var i = lid; i < XV; i += TK * TR) {
      xs[(i % 8u) * (XV / 8u) + i / 8u] = gemv_x4(i);
    }
    workgroupBarrier();
  }
  var acc : array<f32, 8>;
  for (var v = t; v < nv; v += TK) {
    var xv : array<vec4<f32>, 8>;
    for (var w = 0u; w < 8u; w++) {
      if (XV > 0u) {
        xv[w] = xs[w * (XV / 8u) + v];
      } else {
        xv[w] = gemv_x4(v * 8u + w);
      }
    }
    let g = (v * 32u) / p.group;
    for (var i = 0u; i < RPT; i++) {
      let n = row_idx[i];
      acc[i] += q4gsw_scale(n * groups + g) * q4_dot32(qw[n * nv + v], xv);
    }
  }
  gemv_reduce_store(lid, wg, acc);
}
