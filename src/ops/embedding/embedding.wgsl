// Embedding lookup, one invocation per output element (256 per workgroup, 1-D grid folded):
//   out[t, d] = W[ids[t]][d] for t < tokens, d < D; ids outside [0, V) give a row of zeros (no OOB reads).
// Q4 false: W = weight f32 [V, D]. Q4 true: W[v][d] = (code - 8) * scales[v][d / G] in the q4gsw layout
// (ops/linear/q4gsw.h): qweight u32 [V, D/8], scales [V, D/G] as f16 pairs or f32 (q4gsw_scale, ops/linear/q4gsw_scale.wgsl).
#include "ops/common/index.wgsl"
#include "ops/linear/q4gsw_scale.wgsl"

override Q4 : bool = false;

struct Params {
  n : u32,  // tokens * D
  D : u32,
  V : u32,
  group : u32,
}

@group(0) @binding(0) var<storage, read> weight : array<u32>;  // f32 bits, or q4 words
@group(0) @binding(1) var<storage, read> scales : array<u32>;  // Q4 only (any tensor otherwise)
@group(0) @binding(2) var<storage, read> ids : array<i32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let t = i / p.D;
  let d = i % p.D;
  let id = ids[t];
  if (id < 0 || u32(id) >= p.V) {
    out[i] = 0.0;
    return;
  }
  let v = u32(id);
  if (Q4) {
    let word = weight[v * (p.D / 8u) + d / 8u];
    let code = f32((word >> (4u * (d % 8u))) & 15u);
    out[i] = (code - 8.0) * q4gsw_scale(v * (p.D / p.group) + d / p.group);
  } else {
    out[i] = bitcast<f32>(weight[v * p.D + d]);
  }
}
