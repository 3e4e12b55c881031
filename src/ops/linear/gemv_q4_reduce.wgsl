// Row ownership and the cross-lane reduction and store shared by the workgroup-memory q4 GEMV kernels (gemv_q4.wgsl,
// gemv_q4_i8.wgsl). The including kernel declares the overrides TK (k lanes), TR (row lanes) and RPT (rows per
// invocation), the workgroup buffer part : array<f32, TR * RPT * (TK + 1)> ([TR * RPT rows][TK + 1], padded
// against bank conflicts), the bindings bias / out / p and the private m_row; lane (r, t) = (lid / TK, lid % TK) passes its
// RPT partial sums, acc[i] belonging to row r + TR * i of the workgroup.
//
// gemv_rows gives lane lid's RPT rows within this dispatch's slice (gemv_row of gemv_q4_fuse.wgsl: clamped to
// the last row, lanes past N compute a duplicate that is never stored; GLU pairs gate and up rows).
//
// Stage 1 writes the partials; stage 2 has PR = TK / RPT threads per row fold RPT partials each (thread j of
// row `row` folds part[row][j + PR * m], m < RPT, into part[row][j]: only it reads or writes that slot in this
// stage); stage 3 has one thread per row sum the PR results and hand them to the store hook gemv_store
// (gemv_q4_fuse.wgsl: bias, residual or GLU epilogue).
#include "ops/linear/gemv_q4_fuse.wgsl"

fn gemv_rows(wg : u32, lid : u32) -> array<u32, 8> {
  var row_idx : array<u32, 8>;
  for (var i = 0u; i < RPT; i++) {
    row_idx[i] = gemv_row(wg, lid / TK + TR * i);
  }
  return row_idx;
}

fn gemv_reduce_store(lid : u32, wg : u32, acc : array<f32, 8>) {
  let r = lid / TK;
  let t = lid % TK;
  let rows = TR * RPT;
  for (var i = 0u; i < RPT; i++) {
    part[(r + TR * i) * (TK + 1u) + t] = acc[i];
  }
  workgroupBarrier();
  let PR = TK / RPT;
  {
    let row = lid / PR;
    let j = lid % PR;
    var s = 0.0;
    for (var m = 0u; m < RPT; m++) {
      s += part[row * (TK + 1u) + j + PR * m];
    }
    part[row * (TK + 1u) + j] = s;
  }
  workgroupBarrier();
  var s = 0.0;
  if (lid < rows) {
    for (var j = 0u; j < PR; j++) {
      s += part[lid * (TK + 1u) + j];
    }
  }
  gemv_store(lid, wg, s);
}
