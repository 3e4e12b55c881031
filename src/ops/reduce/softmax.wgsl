// Softmax over the last dim, one workgroup (256 invocations) per row of D elements, numerically stable:
//   m = max_i x[i]; out[i] = exp(x[i] - m) / sum_j exp(x[j] - m)
// -inf entries give 0. A row whose entries are all -inf gives all zeros (PyTorch gives NaN there; zeros
// keep fully masked rows harmless). Max and sum use tree reductions in workgroup memory.
// Grid: 1-D over rows, folded (linear_workgroup).
#include "ops/common/index.wgsl"
#include "ops/common/reduce.wgsl"

struct Params {
  rows : u32,
  D : u32,
  _pad0 : u32,
  _pad1 : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

const WG = 256u;

const LOWEST : f32 = -3.4e38;  // below any finite logit of interest; -inf is handled apart

fn is_neg_inf(v : f32) -> bool {
  return bitcast<u32>(v) == 0xff800000u;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  let base = row * p.D;
  var m = LOWEST;
  for (var i = lid; i < p.D; i += WG) {
    let v = x[base + i];
    if (!is_neg_inf(v)) {
      m = max(m, v);
    }
  }
  m = workgroup_max(m, lid);
  var s = 0.0;
  for (var i = lid; i < p.D; i += WG) {
    let v = x[base + i];
    if (!is_neg_inf(v)) {
      s += exp(v - m);
    }
  }
  let total = workgroup_sum(s, lid);
  let inv = select(0.0, 1.0 / total, total > 0.0);
  for (var i = lid; i < p.D; i += WG) {
    let v = x[base + i];
    out[base + i] = select(exp(v - m) * inv, 0.0, is_neg_inf(v));
  }
}
