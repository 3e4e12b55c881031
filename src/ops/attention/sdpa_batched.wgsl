// wgrt.sdpa_batched, attention: one workgroup per (row r, query head h), R*Hq workgroups. Row r attends to the
// keys at positions [0, pos[r]] of its slot's cache region (causal within its own sequence; other slots are
// never read). GQA: query head h reads kv head h / (Hq/Hkv).
//   1. scores[t] = (q·scale)·k_t into scratch row (r*Hq + h) of length C_max; row max;
//   2. scores[t] = exp(scores[t] - max), row sum;
//   3. out = Σ_t scores[t] v_t / sum.
// The cache-write dispatch runs first, so the rows of this call (a prefill chunk of one slot) see each other.
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<f32>;
@group(0) @binding(1) var<storage, read> k_cache : array<f32>;
@group(0) @binding(2) var<storage, read> v_cache : array<f32>;
@group(0) @binding(3) var<storage, read> slots : array<i32>;
@group(0) @binding(4) var<storage, read> pos : array<i32>;
@group(0) @binding(5) var<storage, read_write> scores : array<f32>;
@group(0) @binding(6) var<storage, read_write> out : array<f32>;
@group(0) @binding(7) var<uniform> p : Params;

#include "ops/attention/sdpa_batched_common.wgsl"

const WG : u32 = 64u;
const MAX_D : u32 = 256u;
const NEG_INF : f32 = -3.402823e38;

#include "ops/common/reduce.wgsl"

var<workgroup> q_sh : array<f32, MAX_D>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let qr = linear_workgroup(wid, nwg);  // query head row: r*Hq + h
  if (qr >= p.rows * p.hq) {
    return;  // uniform per workgroup
  }
  let r = qr / p.hq;
  let h = qr % p.hq;
  if (!row_valid(r)) {
    for (var d = lid; d < p.d; d += WG) {
      out[qr * p.d + d] = 0.0;
    }
    return;  // uniform per workgroup
  }
  let n = u32(pos[r]) + 1u;
  let stride = p.hkv * p.d;
  let kb = (u32(slots[r]) * p.c_max * p.hkv + h / (p.hq / p.hkv)) * p.d;
  let sbase = qr * p.c_max;
  for (var d = lid; d < p.d; d += WG) {
    q_sh[d] = q[qr * p.d + d] * p.scale;
  }
  workgroupBarrier();
  var m = NEG_INF;
  for (var t = lid; t < n; t += WG) {
    let base = kb + t * stride;
    var acc = 0.0;
    for (var d = 0u; d < p.d; d++) {
      acc += q_sh[d] * k_cache[base + d];
    }
    scores[sbase + t] = acc;
    m = max(m, acc);
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
  let inv = 1.0 / l;
  for (var d = lid; d < p.d; d += WG) {
    var acc = 0.0;
    for (var t = 0u; t < n; t++) {
      acc += scores[sbase + t] * v_cache[kb + t * stride + d];
    }
    out[qr * p.d + d] = acc * inv;
  }
}
