// wgrt.sample, the draw (method in sample.wgsl's header): mass (per-chunk kept mass), draw (the Philox target
// and its chunk), pick (the token, the next window), probs_out (inspection).
#include "ops/sampling/sample_common.wgsl"

// Per-chunk kept mass.
@compute @workgroup_size(256)
fn mass(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  load_params(row);
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
  load_params(row);
  if (lid != 0u || state(row, S_BAD) != 0u) {
    return;
  }
  var total = vec2<u32>(0u, 0u);
  for (var c = 0u; c < p.chunks; c++) {
    let w = (row * p.chunks + c) * 512u;
    total = add64(total, vec2<u32>(part[w], part[w + 1u]));
  }
  set_state64(row, S_TOTAL, total);
  let ctr = vec2<u32>(p.ctr_lo, p.ctr_hi);  // load_params added the row offset
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
// (per row, or the last row's for a shared window): wout = window shifted by one, the token appended.
@compute @workgroup_size(256)
fn pick(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  load_params(row);
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
  if (u.wrows > 1u || row + 1u == p.rows) {  // per-row windows: each row's own; a shared one: the last row's
    for (var j = lid; j < p.wlen; j += WG) {
      var v = tok;
      if (j + 1u < p.wlen) {
        v = window[p.wbase + j + 1u];
      }
      wout[p.wbase + j] = v;
    }
  }
}

// Test/inspection output: each token's renormalised probability of being drawn (0 outside the kept set).
@compute @workgroup_size(256)
fn probs_out(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  let row = wid.z;
  load_params(row);
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
