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
// Parameters per row: params [P, 16] and window [Pw, W] hold one row (shared by every row; row r draws at
// counter step + r) or one per row (each its own step). A row whose params [0] != 1 is off: out = -1.
// Dispatches (grid z = row): prep (chunks), init (1), (hist, select) x passes for top-k then for top-p
// (1 workgroup for select), mass (chunks), draw (1), pick (1), probs (chunks, optional).
// A NaN or +inf logit, or every logit -inf, gives out = -1.
#include "ops/sampling/sample_common.wgsl"

// z = logits with the repetition penalty (each distinct window id once); per-chunk max and bad flag.
@compute @workgroup_size(256)
fn prep(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  load_params(row);
  if (wg_uniform(lid, !p.on)) {
    return;  // init marks the row off
  }
  let lo = wid.x * CHUNK;
  let hi = min(lo + CHUNK, p.V);
  let base = row * p.V;
  for (var i = lo + lid; i < hi; i += WG) {
    z[base + i] = logits[base + i];
  }
  storageBarrier();
  if ((p.flags & F_PEN) != 0u) {
    for (var s = lid; s < p.wlen; s += WG) {
      let id = window[p.wbase + s];
      if (id >= 0 && u32(id) >= lo && u32(id) < hi) {
        var first = true;
        for (var j = 0u; j < s; j++) {
          if (window[p.wbase + j] == id) {
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
  load_params(row);
  if (lid != 0u) {
    return;
  }
  var mk = 0u;
  var bad = 0u;
  for (var c = 0u; c < p.chunks && p.on; c++) {
    let w = (row * p.chunks + c) * 512u;
    mk = max(mk, part[w]);
    bad = max(bad, part[w + 1u]);
  }
  if (bad == 0u && mk <= NEG_INF_KEY) {
    bad = 2u;
  }
  if (!p.on) {
    bad = 3u;
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
  load_params(row);
  if (stage_skip(row, lid)) {
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
  load_params(row);
  if (stage_skip(row, lid)) {
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
