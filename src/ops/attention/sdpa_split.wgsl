// llama.sdpa_with_kv_cache, split-KV (flash-decoding) route for S = 1: query rows r = b*Hq + h.
// partial: one workgroup per (row, chunk) handles keys [c*chunk, min((c+1)*chunk, n)) and writes
//   (m = max score, l = Σ exp(s - m), acc[d] = Σ exp(s - m) v[d]) to part_out[(r*nchunks + c)*(D+2) ...].
// combine: one workgroup per row: M = max m_c, L = Σ l_c exp(m_c - M), out = Σ acc_c exp(m_c - M) / L.
// Reference: Dao et al., "Flash-Decoding for long-context inference" (2023).
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<f32>;
@group(0) @binding(1) var<storage, read> k_cache : array<f32>;
@group(0) @binding(2) var<storage, read> v_cache : array<f32>;
@group(0) @binding(3) var<storage, read_write> partials : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

#include "ops/attention/sdpa_common.wgsl"

const WG_KEYS : u32 = 256u;
var<workgroup> sc : array<f32, WG_KEYS>;

@compute @workgroup_size(64)
fn partial(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let w = linear_workgroup(wid, nwg);
  if (w >= p.rows * p.nchunks) {
    return;
  }
  let r = w / p.nchunks;
  let c = w % p.nchunks;
  let n = visible_keys(r);
  let t0 = c * p.chunk;
  let t1 = min(t0 + p.chunk, n);
  load_q(r, lid);
  let kb = kv_base(r);
  let ks = kv_stride();
  var m = NEG_INF;
  for (var t = t0 + lid; t < t1; t += WG) {
    let s = masked_score(r, kb, t);
    sc[t - t0] = s;
    m = max(m, s);
  }
  m = workgroup_max(m, lid);
  var l = 0.0;
  for (var t = t0 + lid; t < t1; t += WG) {
    let e = exp(sc[t - t0] - m);
    sc[t - t0] = e;
    l += e;
  }
  l = workgroup_sum(l, lid);  // its barriers also publish sc[]
  let lanes = pv_lanes();
  let groups = pv_groups();
  let g = lid / lanes;
  if (g < groups) {
    for (var d = lid % lanes; d < p.d; d += lanes) {
      var acc = 0.0;
      for (var t = t0 + g; t < t1; t += groups) {
        acc += sc[t - t0] * v_cache[kb + t * ks + d];
      }
      part[g * p.d + d] = acc;
    }
  }
  workgroupBarrier();
  let base = w * (p.d + 2u);
  if (lid == 0u) {
    partials[base] = m;
    partials[base + 1u] = l;
  }
  for (var d = lid; d < p.d; d += WG) {
    var acc = 0.0;
    for (var k = 0u; k < groups; k++) {
      acc += part[k * p.d + d];
    }
    partials[base + 2u + d] = acc;
  }
}

@compute @workgroup_size(64)
fn combine(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.rows) {
    return;
  }
  let stride = p.d + 2u;
  let base = r * p.nchunks * stride;
  var mx = NEG_INF;
  for (var c = 0u; c < p.nchunks; c++) {
    mx = max(mx, partials[base + c * stride]);
  }
  var l = 0.0;
  for (var c = 0u; c < p.nchunks; c++) {
    l += partials[base + c * stride + 1u] * exp(partials[base + c * stride] - mx);
  }
  let inv = 1.0 / l;
  for (var d = lid; d < p.d; d += WG) {
    var acc = 0.0;
    for (var c = 0u; c < p.nchunks; c++) {
      acc += partials[base + c * stride + 2u + d] * exp(partials[base + c * stride] - mx);
    }
    out[r * p.d + d] = acc * inv;
  }
}
