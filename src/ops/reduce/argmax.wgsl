// Argmax over rows of D elements: out[r] = the lowest index of the row's maximum; NaN entries are ignored
// (a row of only NaN gives 0). Each invocation scans a strided subset in increasing order, then (value, index)
// pairs are merged by a tree reduction in workgroup memory.
//   main:    one workgroup (256 invocations) per row (short rows). Grid: rows, folded.
//   partial: long rows in two passes: one workgroup per CHUNK-element chunk of a row writes its best pair to
//            part[(row * chunks + c) * 2 ..] (value bits, index); grid rows * chunks, folded. combine: one
//            workgroup per row merges its chunks' pairs (lowest index wins ties, as chunks are in order).
// CHECKED (wgrt.argmax_checked): a NaN or +-inf entry makes the row's result -1. The scan marks it with the
// index BAD, which beats every other pair, so it survives both reductions.
#include "ops/common/index.wgsl"

const CHUNK : u32 = 4096u;

struct Params {
  rows : u32,
  D : u32,
  chunks : u32,  // two-pass route: chunks per row
  _pad1 : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<i32>;
@group(0) @binding(2) var<uniform> p : Params;
@group(0) @binding(3) var<storage, read_write> part : array<u32>;

var<workgroup> rv : array<f32, 256>;
var<workgroup> ri : array<u32, 256>;

const NONE : u32 = 0xffffffffu;
const BAD : u32 = 0xfffffffeu;
override CHECKED : bool = false;

fn is_nan(v : f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

// (v, i) beats (bv, bi): bi empty, or greater value, or equal value at a lower index.
fn beats(v : f32, i : u32, bv : f32, bi : u32) -> bool {
  if (i == NONE || bi == BAD) {
    return false;
  }
  if (i == BAD) {
    return true;
  }
  return bi == NONE || v > bv || (v == bv && i < bi);
}

// Merges the workgroup's (bv, bi) pairs; the winner ends in rv[0], ri[0].
fn reduce_pairs(bv : f32, bi : u32, lid : u32) {
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
}

// Best (value, index) of x[base + i] for i in [lo, hi) visited by this invocation.
fn scan(base : u32, lo : u32, hi : u32, lid : u32) -> vec2<u32> {
  var bv = 0.0;
  var bi = NONE;
  for (var i = lo + lid; i < hi; i += 256u) {
    let v = x[base + i];
    if (CHECKED && (bitcast<u32>(v) & 0x7fffffffu) >= 0x7f800000u) {
      bi = BAD;
      break;
    }
    if (!is_nan(v) && (bi == NONE || v > bv)) {
      bv = v;
      bi = i;
    }
  }
  return vec2<u32>(bitcast<u32>(bv), bi);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  let b = scan(row * p.D, 0u, p.D, lid);
  reduce_pairs(bitcast<f32>(b.x), b.y, lid);
  if (lid == 0u) {
    out[row] = select(select(i32(ri[0]), 0, ri[0] == NONE), -1, ri[0] == BAD);
  }
}

@compute @workgroup_size(256)
fn partial(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let w = linear_workgroup(wid, nwg);
  if (w >= p.rows * p.chunks) {
    return;
  }
  let row = w / p.chunks;
  let c = w % p.chunks;
  let b = scan(row * p.D, c * CHUNK, min((c + 1u) * CHUNK, p.D), lid);
  reduce_pairs(bitcast<f32>(b.x), b.y, lid);
  if (lid == 0u) {
    part[w * 2u] = bitcast<u32>(rv[0]);
    part[w * 2u + 1u] = ri[0];
  }
}

@compute @workgroup_size(256)
fn combine(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  var bv = 0.0;
  var bi = NONE;
  for (var c = lid; c < p.chunks; c += 256u) {
    let v = bitcast<f32>(part[(row * p.chunks + c) * 2u]);
    let i = part[(row * p.chunks + c) * 2u + 1u];
    if (beats(v, i, bv, bi)) {
      bv = v;
      bi = i;
    }
  }
  reduce_pairs(bv, bi, lid);
  if (lid == 0u) {
    out[row] = select(select(i32(ri[0]), 0, ri[0] == NONE), -1, ri[0] == BAD);
  }
}
