// llama.sdpa_with_kv_cache, general route: one workgroup per query row r (B*S*Hq rows).
//   1. scores[t] = (q·scale)·k_t for the visible keys, into the scratch row r (length C_max); row max;
//   2. scores[t] = exp(scores[t] - max), row sum;
//   3. out = Σ_t scores[t] v_t / sum.
// The K/V rows must already hold this call's keys (the cache-write dispatches run first).
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<f32>;
@group(0) @binding(1) var<storage, read> k_cache : array<f32>;
@group(0) @binding(2) var<storage, read> v_cache : array<f32>;
@group(0) @binding(3) var<storage, read_write> scores : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

#include "ops/attention/sdpa_common.wgsl"

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.rows) {
    return;  // uniform per workgroup
  }
  let n = visible_keys(r);
  let sbase = r * p.c_max;
  load_q(r, lid);
  let kb = kv_base(r);
  let ks = kv_stride();
  var m = NEG_INF;
  for (var t = lid; t < n; t += WG) {
    let s = masked_score(r, kb, t);
    scores[sbase + t] = s;
    m = max(m, s);
  }
  m = workgroup_max(m, lid);
  var l = 0.0;
  for (var t = lid; t < n; t += WG) {
    let e = exp(scores[sbase + t] - m);
    scores[sbase + t] = e;
    l += e;
  }
  l = workgroup_sum(l, lid);
  storageBarrier();
  let lanes = pv_lanes();
  let groups = pv_groups();
  let g = lid / lanes;
  if (g < groups) {
    for (var d = lid % lanes; d < p.d; d += lanes) {
      var acc = 0.0;
      for (var t = g; t < n; t += groups) {
        acc += scores[sbase + t] * v_cache[kb + t * ks + d];
      }
      part[g * p.d + d] = acc;
    }
  }
  workgroupBarrier();
  let inv = 1.0 / l;
  for (var d = lid; d < p.d; d += WG) {
    var acc = 0.0;
    for (var k = 0u; k < groups; k++) {
      acc += part[k * p.d + d];
    }
    out[r * p.d + d] = acc * inv;
  }
}
