// Shared by the wgrt.sample kernels (sample.wgsl: prep and the radix select; sample_draw.wgsl: the draw):
// bindings, parameters, per-row state, 64-bit integer helpers, Philox4x32-10, keys and weights. The method
// is described in sample.wgsl's header.
const WG : u32 = 256u;
const PER : u32 = 16u;
const CHUNK : u32 = 4096u;  // WG * PER logits per chunk workgroup

override STAGE : u32 = 0u;  // hist / select: 0 = top-k (counts), 1 = top-p (masses)

// Shared by every row (the uniform block): sizes, and how many rows of params / window there are (1: every
// row uses row 0's; else one per row).
struct Shared {
  V : u32,
  chunks : u32,
  id_passes : u32,
  rows : u32,
  wlen : u32,   // window width W (-1 entries are empty)
  prows : u32,  // params rows: 1 or rows
  wrows : u32,  // window rows: 1 or rows
  _pad : u32,
}

// One row's parameters, unpacked from the params tensor by load_params (sampling.h: sample_params layout).
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
  ctr_lo : u32,  // the row's Philox counter: step + (row - its params row)
  ctr_hi : u32,
  rows : u32,
  wbase : u32,   // the row's window offset
  on : bool,
}

@group(0) @binding(0) var<storage, read> logits : array<f32>;
@group(0) @binding(1) var<storage, read> window : array<i32>;
@group(0) @binding(2) var<storage, read_write> out : array<i32>;
@group(0) @binding(3) var<storage, read_write> wout : array<i32>;
@group(0) @binding(4) var<uniform> u : Shared;
@group(0) @binding(5) var<storage, read_write> z : array<f32>;     // penalized logits [rows, V]
@group(0) @binding(6) var<storage, read_write> part : array<u32>;  // per-chunk partials [rows, chunks, 256, 2]
@group(0) @binding(7) var<storage, read_write> st : array<u32>;    // state [rows, 32]
@group(0) @binding(8) var<storage, read_write> probs : array<f32>; // [rows, V] (probs entry only)
@group(0) @binding(9) var<storage, read> params : array<i32>;      // [prows, 16]

var<private> p : Params;  // this workgroup's row (load_params at each entry)

const F_TOPK : u32 = 1u;
const F_TOPP : u32 = 2u;
const F_MINP : u32 = 4u;
const F_PEN : u32 = 8u;

// State words (per row, base row * 32).
const S_BAD : u32 = 0u;    // 1: a NaN or +inf logit, 2: every logit -inf, 3: the row is off (params [0] != 1)
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

// Every entry point starts with this: p = row `row`'s parameters and flags.
fn load_params(row : u32) {
  let pr = min(row, u.prows - 1u);
  let b = pr * 16u;
  p.V = u.V;
  p.chunks = u.chunks;
  p.id_passes = u.id_passes;
  p.rows = u.rows;
  p.wlen = u.wlen;
  p.wbase = min(row, u.wrows - 1u) * u.wlen;
  p.on = params[b] == 1;
  p.temp = bitcast<f32>(params[b + 1u]);
  p.top_k = u32(max(params[b + 2u], 0));
  p.top_p = bitcast<f32>(params[b + 3u]);
  p.min_p = bitcast<f32>(params[b + 4u]);
  p.penalty = bitcast<f32>(params[b + 5u]);
  p.seed_lo = bitcast<u32>(params[b + 6u]);
  p.seed_hi = bitcast<u32>(params[b + 7u]);
  let ctr = add64(vec2<u32>(bitcast<u32>(params[b + 8u]), bitcast<u32>(params[b + 9u])), vec2<u32>(row - pr, 0u));
  p.ctr_lo = ctr.x;
  p.ctr_hi = ctr.y;
  var f = 0u;
  if (p.top_k > 0u && p.top_k < p.V) {
    f |= F_TOPK;
  }
  if (p.top_p < 1.0) {
    f |= F_TOPP;
  }
  if (p.min_p > 0.0) {
    f |= F_MINP;
  }
  if (p.penalty != 1.0 && p.wlen > 0u) {
    f |= F_PEN;
  }
  p.flags = f;
}

// `skip` made uniform across the workgroup (so kernels may return before their barriers).
fn wg_uniform(lid : u32, skip : bool) -> bool {
  if (lid == 0u) {
    wg_flag = select(0u, 1u, skip);
  }
  return workgroupUniformLoad(&wg_flag) != 0u;
}

// The row's bad flag (1, 2; 3: the row is off), uniform across the workgroup.
fn row_bad(row : u32, lid : u32) -> bool {
  return wg_uniform(lid, lid == 0u && st[row * 32u + S_BAD] != 0u);
}

// hist / select_digit: the row is bad or off, or has no filter of this STAGE (top-k: 0, top-p: 1).
fn stage_skip(row : u32, lid : u32) -> bool {
  let want = select(F_TOPP, F_TOPK, STAGE == 0u);
  return wg_uniform(lid, lid == 0u && (st[row * 32u + S_BAD] != 0u || (p.flags & want) == 0u));
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
