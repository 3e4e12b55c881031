// et_vk.sdpa route 1 ("channel attention": few query rows, many keys), dispatch 1 of 2: split-K partials.
// Workgroup (r, c) takes query row r (bh = r / Sq, i = r % Sq) and keys [256c, 256c + 256):
//   s_j = scale * q[r] . k[bh, j] + mask(b, h, i, j);  m = max_j s_j;  l = sum_j exp(s_j - m);
//   o[d] = sum_j exp(s_j - m) v[bh, j, d]
// and writes (m, l, o[0..Dv)) to part[(r * nsplit + c) * (Dv + 2)]. Masked (-inf) keys are skipped; a chunk
// with no live key writes m = LOWEST, l = 0, o = 0. 256 invocations, one key each; folded grid.
#include "ops/common/index.wgsl"
#include "ops/common/reduce.wgsl"
#include "ops/attention/sdpa_encoder_common.wgsl"

struct Params {
  rows : u32, Sq : u32, Skv : u32, D : u32,
  Dv : u32, H : u32, nsplit : u32, has_mask : u32,
  msb : u32, msh : u32, msi : u32, msj : u32,
  scale : f32, _p0 : u32, _p1 : u32, _p2 : u32,
}

@group(0) @binding(0) var<storage, read> q : array<f32>;
@group(0) @binding(1) var<storage, read> k : array<f32>;
@group(0) @binding(2) var<storage, read> v : array<f32>;
@group(0) @binding(3) var<storage, read> mask : array<f32>;
@group(0) @binding(4) var<storage, read_write> part : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

const SPLIT_KEYS = 256u;  // keys per workgroup, one per invocation (read by the host)

const WG = SPLIT_KEYS;  // for ops/common/reduce.wgsl
var<workgroup> pj : array<f32, SPLIT_KEYS>;

@compute @workgroup_size(SPLIT_KEYS)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let lw = linear_workgroup(wid, nwg);
  if (lw >= p.rows * p.nsplit) {
    return;
  }
  let r = lw / p.nsplit;
  let c = lw % p.nsplit;
  let bh = r / p.Sq;
  let i = r % p.Sq;
  let j = c * SPLIT_KEYS + lid;
  var sc = LOWEST;
  if (j < p.Skv) {
    let qb = r * p.D;
    let kb = (bh * p.Skv + j) * p.D;
    var dot = 0.0;
    for (var d = 0u; d < p.D; d++) {
      dot += q[qb + d] * k[kb + d];
    }
    sc = dot * p.scale;
    if (p.has_mask != 0u) {
      let mv = mask[(bh / p.H) * p.msb + (bh % p.H) * p.msh + i * p.msi + j * p.msj];
      if (is_neg_inf(mv)) {
        sc = LOWEST;
      } else {
        sc += mv;
      }
    }
    sc = max(sc, LOWEST);
  }
  let m = workgroup_max(sc, lid);
  var e = 0.0;
  if (m > LOWEST && sc > LOWEST) {
    e = exp(sc - m);
  }
  pj[lid] = e;
  let l = workgroup_sum(e, lid);  // its barriers also publish pj
  let out_base = (r * p.nsplit + c) * (p.Dv + 2u);
  if (lid == 0u) {
    part[out_base] = m;
    part[out_base + 1u] = l;
  }
  let nk = min(SPLIT_KEYS, p.Skv - c * SPLIT_KEYS);
  let vb = (bh * p.Skv + c * SPLIT_KEYS) * p.Dv;
  for (var d = lid; d < p.Dv; d += SPLIT_KEYS) {
    var o = 0.0;
    for (var t = 0u; t < nk; t++) {
      o += pj[t] * v[vb + t * p.Dv + d];
    }
    part[out_base + 2u + d] = o;
  }
}
