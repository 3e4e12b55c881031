// et_vk.sdpa route 0, dispatch 2 of 3: in-place row softmax of the scores of one query-row chunk.
// scores [rows = BH * Mc, Skv] (already scaled by the QK GEMM); row r is query i = i0 + r % Mc of head
// bh = r / Mc (b = bh / H, h = bh % H). With has_mask the additive mask element
// mask[b*msb + h*msh + i*msi + j*msj] (broadcast dims have stride 0) is added first; -inf mask entries give
// probability 0 and a row with every entry masked gives all zeros (so the output row is 0, never NaN).
// One 64-wide workgroup per row over a folded grid; max and sum by tree reductions.
#include "ops/common/index.wgsl"
#include "ops/common/reduce.wgsl"
#include "ops/attention/sdpa_encoder_common.wgsl"

struct Params {
  rows : u32, Mc : u32, Skv : u32, i0 : u32,
  H : u32, has_mask : u32, msb : u32, msh : u32,
  msi : u32, msj : u32, _p0 : u32, _p1 : u32,
}

@group(0) @binding(0) var<storage, read_write> s : array<f32>;
@group(0) @binding(1) var<storage, read> mask : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

const WG = 64u;

fn logit(base : u32, mbase : u32, j : u32) -> f32 {
  var v = s[base + j];
  if (p.has_mask != 0u) {
    let m = mask[mbase + j * p.msj];
    if (is_neg_inf(m)) {
      return LOWEST;
    }
    v += m;
  }
  return max(v, LOWEST);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.rows) {
    return;
  }
  let bh = r / p.Mc;
  let i = p.i0 + r % p.Mc;
  let base = r * p.Skv;
  let mbase = (bh / p.H) * p.msb + (bh % p.H) * p.msh + i * p.msi;
  var m = LOWEST;
  for (var j = lid; j < p.Skv; j += WG) {
    m = max(m, logit(base, mbase, j));
  }
  let rmax = workgroup_max(m, lid);
  let dead = rmax <= LOWEST;
  var sum = 0.0;
  for (var j = lid; j < p.Skv; j += WG) {
    let v = logit(base, mbase, j);
    if (!dead && v > LOWEST) {
      sum += exp(v - rmax);
    }
  }
  let inv = select(1.0 / workgroup_sum(sum, lid), 0.0, dead);
  for (var j = lid; j < p.Skv; j += WG) {
    let v = logit(base, mbase, j);
    var e = 0.0;
    if (!dead && v > LOWEST) {
      e = exp(v - rmax) * inv;
    }
    s[base + j] = e;
  }
}
