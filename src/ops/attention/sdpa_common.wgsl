// The scores-in-scratch attention body shared by llama.sdpa_with_kv_cache's legacy route (sdpa.wgsl, with
// gemma's options for wgrt.sdpa_with_kv_cache_swa) and wgrt.sdpa_batched (sdpa_batched.wgsl): one workgroup per
// query row, the row's scores in scratch row qrow of length C_max. Reductions from ops/common/reduce.wgsl.
// The including kernel declares the bindings q, k_cache, v_cache (array<KvWord>: kv_scalar.wgsl), scores
// (read_write), out (read_write) and a uniform p with fields d (head dim <= 256), hkv, c_max, scale, window and
// softcap (below).
#include "ops/common/reduce.wgsl"
#include "ops/kv_cache/kv_scalar.wgsl"

const WG : u32 = 64u;
const MAX_D : u32 = 256u;
const NEG_INF : f32 = -3.402823e38;

var<workgroup> q_sh : array<f32, MAX_D>;
var<workgroup> part : array<f32, 512>;

fn kv_stride() -> u32 { return p.hkv * p.d; }

// Loads q row qrow, pre-multiplied by the scale, into q_sh. Ends with a barrier.
fn load_q(qrow : u32, lid : u32) {
  for (var d = lid; d < p.d; d += WG) {
    q_sh[d] = q[qrow * p.d + d] * p.scale;
  }
  workgroupBarrier();
}

// (q·scale)·k_t for the key row t of the kv head whose element 0 of row 0 is at kb, with gemma's soft cap
// (p.softcap > 0: s -> softcap * tanh(s / softcap)).
fn score(kb : u32, t : u32) -> f32 {
  let base = kb + t * kv_stride();
  var acc = 0.0;
  for (var d = 0u; d < p.d; d++) {
    acc += q_sh[d] * k_at(base + d);
  }
  if (p.softcap > 0.0) {
    acc = p.softcap * tanh(clamp(acc / p.softcap, -15.0, 15.0));
  }
  return acc;
}

// The first key a query at position qpos sees: with a sliding window (p.window > 0) only keys t with
// qpos - t < window, else 0.
fn first_key(qpos : u32) -> u32 {
  if (p.window > 0u && qpos + 1u > p.window) {
    return qpos + 1u - p.window;
  }
  return 0u;
}

// Dims handled per invocation in the P·V phase: DT = min(D, WG) lanes per group, G = WG / DT groups; group g
// sums keys t ≡ lo + g (mod G) for dims dl, dl + DT, ...; partial sums go to part[g * D + dim].
fn pv_lanes() -> u32 { return min(p.d, WG); }
fn pv_groups() -> u32 { return WG / pv_lanes(); }

// out row qrow = softmax over keys [lo, n) of the row's scores, times V. kb: element 0 of key row 0 of the
// row's kv head. Call with the whole workgroup (uniform control flow).
//   1. scores[t] = score(kb, t) into the scratch row; row max;
//   2. scores[t] = exp(scores[t] - max), row sum;
//   3. out = Σ_t scores[t] v_t / sum.
fn attend_row(qrow : u32, kb : u32, lo : u32, n : u32, lid : u32) {
  let sbase = qrow * p.c_max;
  load_q(qrow, lid);
  var m = NEG_INF;
  for (var t = lo + lid; t < n; t += WG) {
    let s = score(kb, t);
    scores[sbase + t] = s;
    m = max(m, s);
  }
  m = workgroup_max(m, lid);
  var l = 0.0;
  for (var t = lo + lid; t < n; t += WG) {
    let e = exp(scores[sbase + t] - m);
    scores[sbase + t] = e;
    l += e;
  }
  l = workgroup_sum(l, lid);
  storageBarrier();
  let ks = kv_stride();
  let lanes = pv_lanes();
  let groups = pv_groups();
  let g = lid / lanes;
  if (g < groups) {
    for (var d = lid % lanes; d < p.d; d += lanes) {
      var acc = 0.0;
      for (var t = lo + g; t < n; t += groups) {
        acc += scores[sbase + t] * v_at(kb + t * ks + d);
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
    out[qrow * p.d + d] = acc * inv;
  }
}
