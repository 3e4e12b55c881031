// Shared declarations of the sdpa_with_kv_cache kernels (sdpa.wgsl, the legacy route); reductions from
// ops/common/reduce.wgsl.
#include "ops/common/reduce.wgsl"
// Layouts (row-major): q, out [B, S, Hq, D]; k_cache, v_cache [B, C_max, Hkv, D].
// Query row r = (b*S + s)*Hq + h reads kv head h / (Hq/Hkv) (GQA). With the causal mask, query s sees keys
// t <= pos + s; otherwise all t < pos + S.
struct Params {
  rows : u32,      // B*S*Hq
  seq : u32,       // S
  hq : u32,
  hkv : u32,
  d : u32,         // head dim (<= 256)
  pos : u32,       // input_pos
  c_max : u32,
  causal : u32,
  scale : f32,
  chunk : u32,     // split route: keys per chunk (<= WG_KEYS)
  nchunks : u32,   // split route: chunks per query row
  window : u32,    // sliding window: query at position P sees keys t > P - window; 0: all
  softcap : f32,   // scores -> softcap * tanh(score / softcap); 0: none
  _pad0 : u32,
  _pad1 : u32,
  _pad2 : u32,
}

const WG : u32 = 64u;
const MAX_D : u32 = 256u;
const NEG_INF : f32 = -3.402823e38;

var<workgroup> q_sh : array<f32, MAX_D>;
var<workgroup> part : array<f32, 512>;

fn row_batch(r : u32) -> u32 { return r / (p.seq * p.hq); }
fn row_token(r : u32) -> u32 { return (r / p.hq) % p.seq; }
fn row_kv_head(r : u32) -> u32 { return (r % p.hq) / (p.hq / p.hkv); }

// Keys visible to query row r.
fn visible_keys(r : u32) -> u32 {
  if (p.causal != 0u) {
    return p.pos + row_token(r) + 1u;
  }
  return p.pos + p.seq;
}

// Offset of element 0 of key/value row t for query row r: kv_base(r) + t * kv_stride().
fn kv_base(r : u32) -> u32 {
  return (row_batch(r) * p.c_max * p.hkv + row_kv_head(r)) * p.d;
}
fn kv_stride() -> u32 { return p.hkv * p.d; }

// Loads q row r, pre-multiplied by the scale, into q_sh. Ends with a barrier.
fn load_q(r : u32, lid : u32) {
  for (var d = lid; d < p.d; d += WG) {
    q_sh[d] = q[r * p.d + d] * p.scale;
  }
  workgroupBarrier();
}

fn score(kb : u32, t : u32) -> f32 {
  let base = kb + t * kv_stride();
  var acc = 0.0;
  for (var d = 0u; d < p.d; d++) {
    acc += q_sh[d] * k_cache[base + d];
  }
  return acc;
}

// score() with the soft cap and the sliding window applied (masked keys score NEG_INF: exp gives 0 beside the
// row's own key, which is always visible).
fn masked_score(r : u32, kb : u32, t : u32) -> f32 {
  var s = score(kb, t);
  if (p.softcap > 0.0) {
    s = p.softcap * tanh(clamp(s / p.softcap, -15.0, 15.0));
  }
  if (p.window > 0u && t + p.window <= p.pos + row_token(r)) {
    s = NEG_INF;
  }
  return s;
}

// Dims handled per invocation in the P·V phase: DT = min(D, WG) lanes per group, G = WG / DT groups; group g
// sums keys t ≡ g (mod G) for dims dl, dl + DT, ...; partial sums go to part[g * D + dim].
fn pv_lanes() -> u32 { return min(p.d, WG); }
fn pv_groups() -> u32 { return WG / pv_lanes(); }
