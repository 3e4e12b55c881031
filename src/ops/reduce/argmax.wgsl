// Argmax over rows of D elements, one workgroup (256 invocations) per row: out[r] = the lowest index of the
// row's maximum; NaN entries are ignored (a row of only NaN gives 0). Each invocation scans a strided subset
// in increasing order, then (value, index) pairs are merged by a tree reduction in workgroup memory.
// Grid: 1-D over rows, folded (linear_workgroup).
#include "ops/common/index.wgsl"

struct Params {
  rows : u32,
  D : u32,
  _pad0 : u32,
  _pad1 : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<i32>;
@group(0) @binding(2) var<uniform> p : Params;

var<workgroup> rv : array<f32, 256>;
var<workgroup> ri : array<u32, 256>;

const NONE : u32 = 0xffffffffu;

fn is_nan(v : f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

// (v, i) beats (bv, bi): bi empty, or greater value, or equal value at a lower index.
fn beats(v : f32, i : u32, bv : f32, bi : u32) -> bool {
  if (i == NONE) {
    return false;
  }
  return bi == NONE || v > bv || (v == bv && i < bi);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  let base = row * p.D;
  var bv = 0.0;
  var bi = NONE;
  for (var i = lid; i < p.D; i += 256u) {
    let v = x[base + i];
    if (!is_nan(v) && (bi == NONE || v > bv)) {
      bv = v;
      bi = i;
    }
  }
  rv[lid] = bv;
  ri[lid] = bi;
  workgroupBarrier();
  for (var stride = 128u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      let ov = rv[lid + stride];
      let oi = ri[lid + stride];
      if (beats(ov, oi, rv[lid], ri[lid])) {
        rv[lid] = ov;
        ri[lid] = oi;
      }
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    out[row] = select(i32(ri[0]), 0, ri[0] == NONE);
  }
}
