// q4gsw GEMV (decode, M = 1): out[n_base + n] = sum_k x[k] * W[n][k] (+ bias[n_base + n]) for n < N, with
// W in the q4gsw layout (ops/linear/q4gsw.h) bound from row 0 of this dispatch's slice.
//
// Workgroup of TR row lanes x TK k lanes (defaults 4 x 64, RPT 4: 16 rows per workgroup, tuned on an H200); each invocation owns RPT rows (rows
// wg*TR*RPT + r + TR*i) and walks K in vec4<u32> steps (32 codes, 4 words) strided by TK lanes, so a row
// lane reads TK*16 contiguous bytes per step. The 32 x values of a step are loaded once and reused for the RPT rows;
// codes are unpacked 4 at a time with vector shifts and dotted with the matching even/odd x elements;
// sum((c - 8) * x) = sum(c * x) - 8 * sum(x), times the group's scale (G >= 32: one scale per step).
// Partial sums are reduced in workgroup memory (one barrier). Grid: 1-D, folded (linear_workgroup).
#include "ops/common/index.wgsl"

override RPT : u32 = 4u;  // rows per invocation, 1..8
override TK : u32 = 64u;  // k lanes
override TR : u32 = 4u;   // row lanes; TR * RPT * (TK + 1) <= 2112, RPT <= TK

struct Params {
  N : u32,      // rows in this dispatch
  K : u32,
  group : u32,
  has_bias : u32,
  n_base : u32,  // first output column of this dispatch
  nwg : u32,     // workgroups (the grid may be folded and larger)
  _pad0 : u32,
  _pad1 : u32,
}

@group(0) @binding(0) var<storage, read> x : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> qw : array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales : array<f32>;
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

var<workgroup> part : array<f32, 2112>;  // [TR * RPT rows][TK + 1] (padded against bank conflicts)

fn even_codes(w : u32) -> vec4<f32> {
  return vec4<f32>((vec4<u32>(w) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(15u));
}
fn odd_codes(w : u32) -> vec4<f32> {
  return vec4<f32>((vec4<u32>(w) >> vec4<u32>(4u, 12u, 20u, 28u)) & vec4<u32>(15u));
}

@compute @workgroup_size(TK * TR)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  let r = lid / TK;
  let t = lid % TK;
  let rows = TR * RPT;
  let nv = p.K / 32u;              // vec4<u32> per row
  let groups = p.K / p.group;      // scales per row
  var row_idx : array<u32, 8>;
  for (var i = 0u; i < RPT; i++) {
    row_idx[i] = min(wg * rows + r + TR * i, p.N - 1u);
  }
  var acc : array<f32, 8>;
  for (var v = t; v < nv; v += TK) {
    let xb = v * 8u;
    var xe : array<vec4<f32>, 4>;
    var xo : array<vec4<f32>, 4>;
    var xsum = vec4<f32>(0.0);
    for (var w = 0u; w < 4u; w++) {
      let lo = x[xb + 2u * w];
      let hi = x[xb + 2u * w + 1u];
      xe[w] = vec4<f32>(lo.x, lo.z, hi.x, hi.z);
      xo[w] = vec4<f32>(lo.y, lo.w, hi.y, hi.w);
      xsum += lo + hi;
    }
    let xs8 = 8.0 * (xsum.x + xsum.y + xsum.z + xsum.w);
    let g = (v * 32u) / p.group;
    for (var i = 0u; i < RPT; i++) {
      let n = row_idx[i];
      let q = qw[n * nv + v];
      let sc = scales[n * groups + g];
      var s = dot(even_codes(q.x), xe[0]) + dot(odd_codes(q.x), xo[0]);
      s += dot(even_codes(q.y), xe[1]) + dot(odd_codes(q.y), xo[1]);
      s += dot(even_codes(q.z), xe[2]) + dot(odd_codes(q.z), xo[2]);
      s += dot(even_codes(q.w), xe[3]) + dot(odd_codes(q.w), xo[3]);
      acc[i] += sc * (s - xs8);
    }
  }
  for (var i = 0u; i < RPT; i++) {
    part[(r + TR * i) * (TK + 1u) + t] = acc[i];
  }
  workgroupBarrier();
  if (lid < rows) {
    let n = wg * rows + lid;
    if (n < p.N) {
      var s = 0.0;
      for (var j = 0u; j < TK; j++) {
        s += part[lid * (TK + 1u) + j];
      }
      if (p.has_bias != 0u) {
        s += bias[p.n_base + n];
      }
      out[p.n_base + n] = s;
    }
  }
}
