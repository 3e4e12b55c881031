// wgrt.sample (sample.cpp): one seeded draw per row of logits, in text::Sampler's order of operations
// (repetition penalty, temperature, top-k, softmax + top-p, min-p, renormalise, draw), without sorting.
//
// Method. A token's 64-bit key is (order-preserving bits of its penalized logit, V - 1 - id): larger key =
// larger logit, ties to the lower id, so keys are distinct and "the k best tokens" / "the shortest top-p
// prefix" are "keys >= a threshold key". The threshold is found by a radix select over the key, one 8-bit
// digit per pass from the top (4 passes over the value word, then ceil(bits(V - 1) / 8) over the id word):
// `hist` builds per-chunk 256-bin histograms of the keys that match the digits chosen so far (top-k: counts;
// top-p: probability mass), `select` sums the chunks, walks the bins from the top and fixes the digit whose
// bin holds the k-th token (top-k) or the token at which the cumulative mass reaches top_p * the top-k set's
// mass (top-p). Masses are fixed-point integers, w = exp((z - max) / T) scaled by 2^31 and rounded (a
// token's relative weight below about 2^-32 counts 0), summed as 64-bit integers (two u32 words): the sums,
// so the kept sets and the draws, are exact and do not depend on the order of the additions.
// min-p keeps w >= min_p (w is relative to the largest token, which every stage keeps). The draw: r = 32 bits
// of Philox4x32-10 keyed by the seed at counter (step + row); target = floor(r * kept mass / 2^32); the token
// is the first in id order whose cumulative mass exceeds the target (`mass` per chunk, `draw` picks the chunk,
// `pick` the token).
//
// Dispatches (grid z = row): prep (chunks), init (1), (hist, select) x passes for top-k then for top-p
// (1 workgroup for select), mass (chunks), draw (1), pick (1), probs (chunks, optional).
// A NaN or +inf logit, or every logit -inf, gives out = -1.

const WG : u32 = 256u;
const PER : u32 = 16u;
const CHUNK : u32 = 4096u;  // WG * PER logits per chunk workgroup
const WINDOW_MAX : u32 = 1024u;  // window slots the penalty scan handles (host limit)

override STAGE : u32 = 0u;  // hist / select: 0 = top-k (counts), 1 = top-p (masses)

struct Params {
  V : u32,
  chunks : u32,
  id_passes : u32,
  flags : u32,  // 1: top-k, 2: top-p, 4: min-p, 8: penalty
  temp : f32,
  top_p : f32,
  min_p : f32,
  penalty : f32,
  top_k : u32,
  wlen : u32,
  seed_lo : u32,
  seed_hi : u32,
  ctr_lo : u32,
  ctr_hi : u32,
  rows : u32,
  _pad : u32,
}

@group(0) @binding(0) var<storage, read> logits : array<f32>;
@group(0) @binding(1) var<storage, read> window : array<i32>;
@group(0) @binding(2) var<storage, read_write> out : array<i32>;
@group(0) @binding(3) var<storage, read_write> wout : array<i32>;
@group(0) @binding(4) var<uniform> p : Params;
@group(0) @binding(5) var<storage, read_write> z : array<f32>;     // penalized logits [rows, V]
@group(0) @binding(6) var<storage, read_write> part : array<u32>;  // per-chunk partials [rows, chunks, 256, 2]
@group(0) @binding(7) var<storage, read_write> st : array<u32>;    // state [rows, 32]
@group(0) @binding(8) var<storage, read_write> probs : array<f32>; // [rows, V] (probs entry only)

const F_TOPK : u32 = 1u;
const F_TOPP : u32 = 2u;
const F_MINP : u32 = 4u;
const F_PEN : u32 = 8u;

// State words (per row, base row * 32).
const S_BAD : u32 = 0u;    // 1: a NaN or +inf logit, 2: every logit -inf
const S_MAX : u32 = 1u;    // the largest penalized logit (f32 bits)
const S_PASS : u32 = 2u;   // radix pass of the current stage
const S_REM : u32 = 3u;    // 3, 4: remaining count (top-k) or mass (top-p) inside the chosen bins
const S_PRE : u32 = 5u;    // 5 (hi), 6 (lo): digits chosen so far
const S_TK : u32 = 7u;     // 7, 8: top-k threshold key (0 = keep all)
const S_TP : u32 = 9u;     // 9, 10: top-p threshold key
const S_CHUNK : u32 = 11u; // draw: the chunk, then 12, 13: the target inside it
const S_TOTAL : u32 = 14u; // 14, 15: the kept mass

const NEG_INF_BITS : u32 = 0xff800000u;
const NEG_INF_KEY : u32 = 0x007fffffu;  // vkey(-inf)

var<workgroup> h_lo : array<atomic<u32>, 256>;
var<workgroup> h_hi : array<atomic<u32>, 256>;
var<workgroup> s_lo : array<u32, 256>;
var<workgroup> s_hi : array<u32, 256>;
var<workgroup> s_pick : array<u32, 4>;  // the thread, its target (lo, hi), the token
var<workgroup> wg_flag : u32;

// The row's bad flag, uniform across the workgroup (so kernels may return before their barriers).
fn row_bad(row : u32, lid : u32) -> bool {
  if (lid == 0u) {
    wg_flag = st[row * 32u + S_BAD];
  }
  return workgroupUniformLoad(&wg_flag) != 0u;
}

// ---- 64-bit integers as vec2<u32>(lo, hi) ----
fn add64(a : vec2<u32>, b : vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn sub64(a : vec2<u32>, b : vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}
fn ge64(a : vec2<u32>, b : vec2<u32>) -> bool {
  return a.y > b.y || (a.y == b.y && a.x >= b.x);
}
fn f32_of64(a : vec2<u32>) -> f32 {
  return f32(a.y) * 4294967296.0 + f32(a.x);
}
// 0 <= x < 2^64 (truncated).
fn u64_of_f32(x : f32) -> vec2<u32> {
  let hi = floor(x / 4294967296.0);
  return vec2<u32>(u32(clamp(x - hi * 4294967296.0, 0.0, 4294967295.0)), u32(hi));
}
// a * b as (lo, hi).
fn mul_wide(a : u32, b : u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = p01 + p10;
  let mid_carry = select(0u, 0x10000u, mid < p01);
  let lo = p00 + (mid << 16u);
  return vec2<u32>(lo, a1 * b1 + (mid >> 16u) + mid_carry + select(0u, 1u, lo < p00));
}

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
fn philox(ctr : vec4<u32>, key : vec2<u32>) -> vec4<u32> {
  var c = ctr;
  var k = key;
  for (var r = 0u; r < 10u; r++) {
    if (r > 0u) {
      k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
    }
    let m0 = mul_wide(0xD2511F53u, c.x);
    let m1 = mul_wide(0xCD9E8D57u, c.z);
    c = vec4<u32>(m1.y ^ c.y ^ k.x, m1.x, m0.y ^ c.w ^ k.y, m0.x);
  }
  return c;
}

// ---- keys ----
fn is_bad(b : u32) -> bool {  // NaN or +inf
  return (b & 0x7fffffffu) > 0x7f800000u || b == 0x7f800000u;
}
fn vkey(v : f32) -> u32 {
  var b = bitcast<u32>(v);
  if ((b & 0x7fffffffu) == 0u) {
    b = 0u;  // -0 == +0
  }
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}
fn key_of(row : u32, i : u32) -> vec2<u32> {  // (lo = V - 1 - id, hi = value key)
  return vec2<u32>(p.V - 1u - i, vkey(z[row * p.V + i]));
}
fn key_ge(a : vec2<u32>, b : vec2<u32>) -> bool {
  return ge64(a, b);
}
fn passes() -> u32 {
  return 4u + p.id_passes;
}
fn digit_shift(s : u32) -> u32 {
  return select(8u * (p.id_passes - 1u - (s - 4u)), 24u - 8u * s, s < 4u);
}
fn digit(k : vec2<u32>, s : u32) -> u32 {
  return (select(k.x, k.y, s < 4u) >> digit_shift(s)) & 255u;
}
// The key's digits of the passes before s equal those of pre.
fn prefix_match(k : vec2<u32>, pre : vec2<u32>, s : u32) -> bool {
  if (s == 0u) {
    return true;
  }
  if (s <= 4u) {
    let sh = 32u - 8u * s;
    return (k.y >> sh) == (pre.y >> sh);
  }
  let sh = 8u * (p.id_passes - (s - 4u));
  return k.y == pre.y && (k.x >> sh) == (pre.x >> sh);
}

// Relative weight exp((z - max) / T) in [0, 1] and its fixed-point mass round(w * 2^31).
fn weight(v : f32, mx : f32) -> f32 {
  if (bitcast<u32>(v) == NEG_INF_BITS) {
    return 0.0;
  }
  let d = (v - mx) / p.temp;
  return select(exp(d), 0.0, d < -87.0);
}
fn mass_of(w : f32) -> u32 {
  return u32(w * 2147483648.0 + 0.5);
}
fn state(row : u32, i : u32) -> u32 {
  return st[row * 32u + i];
}
fn state64(row : u32, i : u32) -> vec2<u32> {
  return vec2<u32>(st[row * 32u + i + 1u], st[row * 32u + i]);  // stored hi, lo
}
fn set_state64(row : u32, i : u32, v : vec2<u32>) {
  st[row * 32u + i] = v.y;
  st[row * 32u + i + 1u] = v.x;
}
// Kept after every filter stage (the draw's support).
fn kept(row : u32, i : u32, mx : f32) -> bool {
  let k = key_of(row, i);
  if ((p.flags & F_TOPK) != 0u && !key_ge(k, state64(row, S_TK))) {
    return false;
  }
  if ((p.flags & F_TOPP) != 0u && !key_ge(k, state64(row, S_TP))) {
    return false;
  }
  return (p.flags & F_MINP) == 0u || weight(z[row * p.V + i], mx) >= p.min_p;
}

fn wg_sum64(lid : u32, v : vec2<u32>) -> vec2<u32> {
  s_lo[lid] = v.x;
  s_hi[lid] = v.y;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      let r = add64(vec2<u32>(s_lo[lid], s_hi[lid]), vec2<u32>(s_lo[lid + stride], s_hi[lid + stride]));
      s_lo[lid] = r.x;
      s_hi[lid] = r.y;
    }
    workgroupBarrier();
  }
  return vec2<u32>(s_lo[0], s_hi[0]);
}

// z = logits with the repetition penalty (each distinct window id once); per-chunk max and bad flag.
@compute @workgroup_size(256)
fn prep(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  let lo = wid.x * CHUNK;
  let hi = min(lo + CHUNK, p.V);
  let base = row * p.V;
  for (var i = lo + lid; i < hi; i += WG) {
    z[base + i] = logits[base + i];
  }
  storageBarrier();
  if ((p.flags & F_PEN) != 0u) {
    for (var s = lid; s < p.wlen; s += WG) {
      let id = window[s];
      if (id >= 0 && u32(id) >= lo && u32(id) < hi) {
        var first = true;
        for (var j = 0u; j < s; j++) {
          if (window[j] == id) {
            first = false;
            break;
          }
        }
        if (first) {
          let l = logits[base + u32(id)];
          z[base + u32(id)] = select(l * p.penalty, l / p.penalty, l > 0.0);
        }
      }
    }
  }
  storageBarrier();
  // The max as the largest value key (order-preserving; -inf has the smallest non-NaN key).
  var mk = 0u;
  var bad = 0u;
  for (var i = lo + lid; i < hi; i += WG) {
    let v = z[base + i];
    if (is_bad(bitcast<u32>(v))) {
      bad = 1u;
    } else {
      mk = max(mk, vkey(v));
    }
  }
  s_hi[lid] = mk;
  s_lo[lid] = bad;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      s_hi[lid] = max(s_hi[lid], s_hi[lid + stride]);
      s_lo[lid] = max(s_lo[lid], s_lo[lid + stride]);
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    let w = (row * p.chunks + wid.x) * 512u;
    part[w] = s_hi[0];
    part[w + 1u] = s_lo[0];
  }
}

// Merges the chunks' max and bad flags; starts the first radix stage.
@compute @workgroup_size(256)
fn init(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  if (lid != 0u) {
    return;
  }
  var mk = 0u;
  var bad = 0u;
  for (var c = 0u; c < p.chunks; c++) {
    let w = (row * p.chunks + c) * 512u;
    mk = max(mk, part[w]);
    bad = max(bad, part[w + 1u]);
  }
  if (bad == 0u && mk <= NEG_INF_KEY) {
    bad = 2u;
  }
  // The value of the key (not -inf here unless bad).
  let mbits = select(~mk, mk & 0x7fffffffu, (mk & 0x80000000u) != 0u);
  let b = row * 32u;
  for (var i = 0u; i < 32u; i++) {
    st[b + i] = 0u;
  }
  st[b + S_BAD] = bad;
  st[b + S_MAX] = mbits;
  set_state64(row, S_REM, vec2<u32>(p.top_k, 0u));
}

// One radix pass: per-chunk histograms of the current digit (STAGE 0: counts; 1: masses of the top-k set).
@compute @workgroup_size(256)
fn hist(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  if (row_bad(row, lid)) {
    return;
  }
  atomicStore(&h_lo[lid], 0u);
  atomicStore(&h_hi[lid], 0u);
  workgroupBarrier();
  let s = state(row, S_PASS);
  let pre = state64(row, S_PRE);
  let tk = state64(row, S_TK);
  let mx = bitcast<f32>(state(row, S_MAX));
  let lo = wid.x * CHUNK;
  let hi = min(lo + CHUNK, p.V);
  for (var i = lo + lid; i < hi; i += WG) {
    let k = key_of(row, i);
    if (!prefix_match(k, pre, s)) {
      continue;
    }
    let d = digit(k, s);
    if (STAGE == 0u) {
      atomicAdd(&h_lo[d], 1u);
    } else if (key_ge(k, tk)) {
      let m = mass_of(weight(z[row * p.V + i], mx));
      let old = atomicAdd(&h_lo[d], m);
      if (old + m < old) {
        atomicAdd(&h_hi[d], 1u);
      }
    }
  }
  workgroupBarrier();
  let w = ((row * p.chunks + wid.x) * 256u + lid) * 2u;
  part[w] = atomicLoad(&h_lo[lid]);
  part[w + 1u] = atomicLoad(&h_hi[lid]);
}

// Sums the chunks' histograms, fixes this pass's digit; after the last pass stores the stage's threshold key.
@compute @workgroup_size(256)
fn select_digit(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  if (row_bad(row, lid)) {
    return;
  }
  var sum = vec2<u32>(0u, 0u);
  for (var c = 0u; c < p.chunks; c++) {
    let w = ((row * p.chunks + c) * 256u + lid) * 2u;
    sum = add64(sum, vec2<u32>(part[w], part[w + 1u]));
  }
  s_lo[lid] = sum.x;
  s_hi[lid] = sum.y;
  workgroupBarrier();
  if (lid != 0u) {
    return;
  }
  let s = state(row, S_PASS);
  var rem = state64(row, S_REM);
  if (STAGE == 1u && s == 0u) {  // the target mass: top_p times the top-k set's mass, at least one unit
    var total = vec2<u32>(0u, 0u);
    for (var b = 0u; b < 256u; b++) {
      total = add64(total, vec2<u32>(s_lo[b], s_hi[b]));
    }
    rem = u64_of_f32(f32_of64(total) * p.top_p);
    if (!ge64(total, rem)) {
      rem = total;
    }
    if (rem.x == 0u && rem.y == 0u) {
      rem = vec2<u32>(1u, 0u);
    }
  }
  var cum = vec2<u32>(0u, 0u);
  var chosen = 0u;
  for (var j = 0u; j < 256u; j++) {
    let b = 255u - j;
    let next = add64(cum, vec2<u32>(s_lo[b], s_hi[b]));
    chosen = b;
    if (ge64(next, rem)) {
      break;
    }
    cum = next;
  }
  rem = sub64(rem, cum);
  var pre = state64(row, S_PRE);
  if (s < 4u) {
    pre.y |= chosen << digit_shift(s);
  } else {
    pre.x |= chosen << digit_shift(s);
  }
  if (s + 1u == passes()) {
    set_state64(row, select(S_TP, S_TK, STAGE == 0u), pre);
    st[row * 32u + S_PASS] = 0u;
    set_state64(row, S_PRE, vec2<u32>(0u, 0u));
  } else {
    st[row * 32u + S_PASS] = s + 1u;
    set_state64(row, S_PRE, pre);
    set_state64(row, S_REM, rem);
  }
}

// Per-chunk kept mass.
@compute @workgroup_size(256)
fn mass(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  if (row_bad(row, lid)) {
    return;
  }
  let mx = bitcast<f32>(state(row, S_MAX));
  let lo = wid.x * CHUNK;
  let hi = min(lo + CHUNK, p.V);
  var acc = vec2<u32>(0u, 0u);
  for (var i = lo + lid; i < hi; i += WG) {
    if (kept(row, i, mx)) {
      acc = add64(acc, vec2<u32>(mass_of(weight(z[row * p.V + i], mx)), 0u));
    }
  }
  let t = wg_sum64(lid, acc);
  if (lid == 0u) {
    let w = (row * p.chunks + wid.x) * 512u;
    part[w] = t.x;
    part[w + 1u] = t.y;
  }
}

// The random target and the chunk that holds it.
@compute @workgroup_size(256)
fn draw(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  if (lid != 0u || state(row, S_BAD) != 0u) {
    return;
  }
  var total = vec2<u32>(0u, 0u);
  for (var c = 0u; c < p.chunks; c++) {
    let w = (row * p.chunks + c) * 512u;
    total = add64(total, vec2<u32>(part[w], part[w + 1u]));
  }
  set_state64(row, S_TOTAL, total);
  let ctr = add64(vec2<u32>(p.ctr_lo, p.ctr_hi), vec2<u32>(row, 0u));
  let r = philox(vec4<u32>(ctr.x, ctr.y, 0u, 0u), vec2<u32>(p.seed_lo, p.seed_hi)).x;
  // tgt = floor(r * total / 2^32) < total
  let lo = mul_wide(r, total.x);
  let hi = mul_wide(r, total.y);
  let tgt = add64(hi, vec2<u32>(lo.y, 0u));
  var cum = vec2<u32>(0u, 0u);
  var chunk = p.chunks - 1u;
  for (var c = 0u; c < p.chunks; c++) {
    let w = (row * p.chunks + c) * 512u;
    let next = add64(cum, vec2<u32>(part[w], part[w + 1u]));
    if (!ge64(tgt, next)) {
      chunk = c;
      break;
    }
    cum = next;
  }
  st[row * 32u + S_CHUNK] = chunk;
  let rest = sub64(tgt, cum);
  st[row * 32u + S_CHUNK + 1u] = rest.x;
  st[row * 32u + S_CHUNK + 2u] = rest.y;
}

// The token inside the chosen chunk: the first whose cumulative mass exceeds the target. Then the window
// (last row): wout = window shifted by one, the token appended.
@compute @workgroup_size(256)
fn pick(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  var tok = -1;
  if (!row_bad(row, lid)) {
    let mx = bitcast<f32>(state(row, S_MAX));
    let c = state(row, S_CHUNK);
    let tgt = vec2<u32>(state(row, S_CHUNK + 1u), state(row, S_CHUNK + 2u));
    let lo = min(c * CHUNK + lid * PER, p.V);
    let hi = min(lo + PER, p.V);
    var acc = vec2<u32>(0u, 0u);
    for (var i = lo; i < hi; i++) {
      if (kept(row, i, mx)) {
        acc = add64(acc, vec2<u32>(mass_of(weight(z[row * p.V + i], mx)), 0u));
      }
    }
    s_lo[lid] = acc.x;
    s_hi[lid] = acc.y;
    workgroupBarrier();
    if (lid == 0u) {
      var cum = vec2<u32>(0u, 0u);
      var who = WG - 1u;
      for (var t = 0u; t < WG; t++) {
        let next = add64(cum, vec2<u32>(s_lo[t], s_hi[t]));
        if (!ge64(tgt, next)) {
          who = t;
          break;
        }
        cum = next;
      }
      let rest = sub64(tgt, cum);
      s_pick[0] = who;
      s_pick[1] = rest.x;
      s_pick[2] = rest.y;
    }
    workgroupBarrier();
    if (lid == s_pick[0]) {
      let rest = vec2<u32>(s_pick[1], s_pick[2]);
      var cum = vec2<u32>(0u, 0u);
      var last = -1;
      var found = -1;
      for (var i = lo; i < hi; i++) {
        if (kept(row, i, mx)) {
          let m = mass_of(weight(z[row * p.V + i], mx));
          if (m == 0u) {
            continue;
          }
          last = i32(i);
          cum = add64(cum, vec2<u32>(m, 0u));
          if (!ge64(rest, cum)) {
            found = i32(i);
            break;
          }
        }
      }
      s_pick[3] = u32(select(found, last, found < 0));
    }
    workgroupBarrier();
    tok = i32(s_pick[3]);
  }
  if (lid == 0u) {
    out[row] = tok;
  }
  if (row + 1u == p.rows) {
    for (var j = lid; j < p.wlen; j += WG) {
      var v = tok;
      if (j + 1u < p.wlen) {
        v = window[j + 1u];
      }
      wout[j] = v;
    }
  }
}

// Test/inspection output: each token's renormalised probability of being drawn (0 outside the kept set).
@compute @workgroup_size(256)
fn probs_out(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  let lo = wid.x * CHUNK;
  let hi = min(lo + CHUNK, p.V);
  let bad = state(row, S_BAD) != 0u;
  let mx = bitcast<f32>(state(row, S_MAX));
  let total = f32_of64(state64(row, S_TOTAL));
  for (var i = lo + lid; i < hi; i += WG) {
    var q = 0.0;
    if (!bad && kept(row, i, mx)) {
      q = f32(mass_of(weight(z[row * p.V + i], mx))) / total;
    }
    probs[row * p.V + i] = q;
  }
}
