enable subgroups;
diagnostic(off, subgroup_uniformity);
// q4gsw GEMV (decode, M = 1), subgroup route (devices with the `subgroups` feature); same contract as
// gemv_q4.wgsl: out[n_base + n] = sum_k x[k] * W[n][k] (+ bias[n_base + n]) for n < N, W in the q4gsw layout
// (ops/linear/q4gsw.h) bound from row 0 of this dispatch's slice.
//
// A workgroup (256 invocations) covers BW blocks of RPT rows (RW = BW * RPT rows). Each block's K range is split
// into KS slices, giving BW * KS tasks; the workgroup's subgroups take tasks t = sgi, sgi + nsg, ... (sgi = the
// subgroup's index, drawn from a workgroup atomic counter; nsg = the number of subgroups). In a task the
// subgroup's lanes walk the block's rows together: lane l of L reads the vec4<u32> (32 codes, one group scale
// since G >= 32) at v = slice * L + l, then v += L * KS, so the lanes of a subgroup read L * 16 contiguous bytes
// of each row per step, and the 8 vec4 of x for that step serve all RPT rows. Codes are decoded with q4_dot32
// (ops/linear/q4_decode.wgsl). A row's lane partials are summed with subgroupAdd; with KS > 1 the slice sums
// go through workgroup memory (one barrier).
// Nothing assumes a subgroup size or layout: a lane's rank and the lane count come from subgroupExclusiveAdd /
// subgroupAdd over the active invocations (so partial subgroups are handled too), and subgroup indices from
// the atomic counter. Grid: 1-D, folded (linear_workgroup).
#include "ops/common/index.wgsl"
#include "ops/linear/gemv_q4_bindings.wgsl"
#include "ops/linear/q4_decode.wgsl"
#include "ops/common/subgroup_ids.wgsl"

override RPT : u32 = 4u;  // rows per block, 1..8
override BW : u32 = 8u;   // blocks per workgroup
override KS : u32 = 1u;   // K slices per block
override ROWS_PER_WG : u32 = BW * RPT;  // read by the host for the grid

var<workgroup> part : array<f32, BW * RPT * KS>;  // [BW * RPT rows][KS] slice sums (KS > 1)

fn finish(n : u32, s : f32) {
  if (n < p.N) {
    var v = s;
    if (p.has_bias != 0u) {
      v += bias[p.n_base + n];
    }
    out[m_row * p.out_stride + p.n_base + n] = v;
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  m_row = wid.z;
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  let ids = subgroup_ids();
  let lane = ids.lane;
  let lanes = ids.lanes;
  let sgi = ids.sgi;
  workgroupBarrier();
  let nsg = atomicLoad(&sg_next);

  let RW = BW * RPT;
  let nv = p.K / 32u;          // vec4<u32> per row
  let groups = p.K / p.group;  // scales per row
  for (var task = sgi; task < BW * KS; task += nsg) {
    let blk = task / KS;
    let slice = task % KS;
    let row0 = wg * RW + blk * RPT;
    var row_idx : array<u32, 8>;
    for (var i = 0u; i < RPT; i++) {
      row_idx[i] = min(row0 + i, p.N - 1u);
    }
    var acc : array<f32, 8>;
    for (var i = 0u; i < 8u; i++) {
      acc[i] = 0.0;  // explicit: a loop-local var was seen keeping its value across iterations (lavapipe)
    }
    for (var v = slice * lanes + lane; v < nv; v += lanes * KS) {
      var xv : array<vec4<f32>, 8>;
      for (var w = 0u; w < 8u; w++) {
        xv[w] = x[m_row * (p.K / 4u) + v * 8u + w];
      }
      let g = (v * 32u) / p.group;
      for (var i = 0u; i < RPT; i++) {
        let n = row_idx[i];
        acc[i] += q4gsw_scale(n * groups + g) * q4_dot32(qw[n * nv + v], xv);
      }
    }
    for (var i = 0u; i < RPT; i++) {
      let s = subgroupAdd(acc[i]);
      if (lane == 0u) {
        if (KS == 1u) {
          finish(row0 + i, s);
        } else {
          part[(blk * RPT + i) * KS + slice] = s;
        }
      }
    }
  }
  if (KS > 1u) {
    workgroupBarrier();
    for (var rr = lid; rr < RW; rr += 256u) {
      var s = 0.0;
      for (var j = 0u; j < KS; j++) {
        s += part[rr * KS + j];
      }
      finish(wg * RW + rr, s);
    }
  }
}
