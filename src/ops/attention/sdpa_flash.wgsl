// llama.sdpa_with_kv_cache, flash-attention route (prefill and decode): online softmax over key tiles, no
// score buffer in memory. Reference: Dao et al., "FlashAttention" (2022) and "Flash-Decoding" (2023).
//
// Work split. For one batch b and kv head hk, the query rows of its GQA group are j = s*G + g (token s, query
// head hk*G + g, G = Hq/Hkv), so the G heads of one token sit next to each other and share every K/V load.
// A workgroup takes RB consecutive rows j (a "block") and one key range (split c of nsplit):
//   w = ((b*Hkv + hk)*blocks + blk)*nsplit + c;  keys [c*chunk, min((c+1)*chunk, visible keys of the block)).
// Per tile of TK keys:
//   1. scores: invocation kk computes q_r·k_t (q pre-scaled, staged in Qs) for its key t and all RB rows;
//      keys a row may not see (causal mask, chunk end) score NEG_INF;
//   2. online softmax: invocation r < RB takes its row's tile max, m_new = max(m, tile max), rescales by
//      alpha = exp(m - m_new) and turns the scores into p = exp(s - m_new) (0 for masked keys);
//   3. P·V: invocation (row group rg, dim lane dt) accumulates 4 rows x DPT_MAX dims d = dt + DT*j in registers.
// nsplit == 1: out = acc / l. nsplit > 1 (decode): (m, l, acc) to partials[(row*nsplit + c)*(D+2) ...], then
// `combine` (one workgroup per query row) merges them.
// Variants (override DT, the dim lanes): DT 16 "wide": RB 16 rows, D <= 128; DT 64 "narrow": RB 4, D <= 256.
// Layouts (row-major): q, out [B, S, Hq, D]; k_cache, v_cache [B, C_max, Hkv, D].
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<f32>;
@group(0) @binding(1) var<storage, read> k_cache : array<KvWord>;  // the prelude kv_f32.wgsl or kv_f16.wgsl
@group(0) @binding(2) var<storage, read> v_cache : array<KvWord>;
@group(0) @binding(3) var<storage, read_write> partials : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

#include "ops/attention/sdpa_flash_common.wgsl"
#include "ops/kv_cache/kv_scalar.wgsl"

override DT : u32 = 16u;       // dim lanes of the P·V phase (16 or 64)
override DPT_MAX : u32 = 8u;   // dims per invocation: >= ceil(D / DT)
const WG : u32 = 64u;
const TK : u32 = 64u;          // keys per tile (one per invocation in the score phase)
const RPT : u32 = 4u;          // rows per invocation in the P·V phase
const NEG_INF : f32 = -3.402823e38;
override RB : u32 = RPT * (WG / DT);  // rows per block

var<workgroup> Qs : array<vec4<f32>, 512>;  // [RB][D4], zero padded past D
var<workgroup> Ps : array<f32, 1024>;       // [RB][TK]
var<workgroup> alpha_sh : array<f32, 16>;
var<workgroup> l_sh : array<f32, 16>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let w = linear_workgroup(wid, nwg);
  let batches = p.rows / (p.seq * p.hq);
  if (w >= batches * p.hkv * p.blocks * p.nsplit) {
    return;  // uniform per workgroup
  }
  let c = w % p.nsplit;
  let blk = (w / p.nsplit) % p.blocks;
  let bh = w / (p.nsplit * p.blocks);
  let hk = bh % p.hkv;
  let b = bh / p.hkv;
  let nrows = p.seq * group_size();          // rows of (b, hk)
  let j0 = blk * RB;
  let jn = min(j0 + RB, nrows);              // rows j0 .. jn-1 are real
  let d4n = (p.d + 3u) / 4u;
  let ks = p.hkv * p.d;                      // K/V row stride
  let kv0 = (b * p.c_max * p.hkv + hk) * p.d;

  // Stage the block's q rows (scaled), zero past D and for rows past jn.
  for (var i = lid; i < RB * d4n; i += WG) {
    let r = i / d4n;
    let d = (i % d4n) * 4u;
    var v = vec4<f32>(0.0);
    if (j0 + r < jn) {
      let base = query_row(b, hk, j0 + r) * p.d;
      for (var e = 0u; e < 4u; e++) {
        if (d + e < p.d) {
          v[e] = q[base + d + e] * p.scale;
        }
      }
    }
    Qs[r * d4n + d / 4u] = v;
  }

  let t_begin = c * p.chunk;
  let t_end = min(t_begin + p.chunk, visible(jn - 1u));  // the last row sees the most keys
  let rg = lid / DT;
  let dt = lid % DT;
  var acc : array<f32, 64>;  // [RPT][DPT_MAX]
  for (var i = 0u; i < RPT * DPT_MAX; i++) {
    acc[i] = 0.0;
  }
  var m_run = NEG_INF;  // invocation lid < RB: its row's running max and sum
  var l_run = 0.0;
  workgroupBarrier();

  for (var t0 = t_begin; t0 < t_end; t0 += TK) {
    // 1. scores of key t for the RB rows.
    let t = t0 + lid;
    var s : array<f32, 16>;
    for (var r = 0u; r < RB; r++) {
      s[r] = 0.0;
    }
    if (t < t_end) {
      let kb = kv0 + t * ks;
      let full = p.d / 4u;
      for (var d4 = 0u; d4 < full; d4++) {
        let o = kb + d4 * 4u;
        let kv = vec4<f32>(k_at(o), k_at(o + 1u), k_at(o + 2u), k_at(o + 3u));
        for (var r = 0u; r < RB; r++) {
          s[r] += dot(Qs[r * d4n + d4], kv);
        }
      }
      if (full < d4n) {
        var kv = vec4<f32>(0.0);
        for (var e = 0u; e < p.d - full * 4u; e++) {
          kv[e] = k_at(kb + full * 4u + e);
        }
        for (var r = 0u; r < RB; r++) {
          s[r] += dot(Qs[r * d4n + full], kv);
        }
      }
    }
    for (var r = 0u; r < RB; r++) {
      let j = j0 + r;
      let ok = t < t_end && j < jn && t < visible(j);
      Ps[r * TK + lid] = select(NEG_INF, s[r], ok);
    }
    workgroupBarrier();
    // 2. online softmax, one invocation per row.
    if (lid < RB) {
      var tmax = NEG_INF;
      for (var kk = 0u; kk < TK; kk++) {
        tmax = max(tmax, Ps[lid * TK + kk]);
      }
      let m_new = max(m_run, tmax);
      let a = exp(m_run - m_new);
      var sum = 0.0;
      for (var kk = 0u; kk < TK; kk++) {
        let sv = Ps[lid * TK + kk];
        let e = select(exp(sv - m_new), 0.0, sv == NEG_INF);
        Ps[lid * TK + kk] = e;
        sum += e;
      }
      l_run = l_run * a + sum;
      m_run = m_new;
      alpha_sh[lid] = a;
    }
    workgroupBarrier();
    // 3. acc = acc * alpha + P·V over the tile's keys.
    for (var i = 0u; i < RPT; i++) {
      let a = alpha_sh[rg * RPT + i];
      for (var jd = 0u; jd < DPT_MAX; jd++) {
        acc[i * DPT_MAX + jd] *= a;
      }
    }
    let nk = min(TK, t_end - t0);
    for (var kk = 0u; kk < nk; kk++) {
      let vb = kv0 + (t0 + kk) * ks;
      var vv : array<f32, 16>;
      for (var jd = 0u; jd < DPT_MAX; jd++) {
        let d = dt + DT * jd;
        vv[jd] = select(0.0, v_at(vb + min(d, p.d - 1u)), d < p.d);
      }
      for (var i = 0u; i < RPT; i++) {
        let pr = Ps[(rg * RPT + i) * TK + kk];
        for (var jd = 0u; jd < DPT_MAX; jd++) {
          acc[i * DPT_MAX + jd] += pr * vv[jd];
        }
      }
    }
    workgroupBarrier();
  }

  if (lid < RB) {
    l_sh[lid] = l_run;
    if (p.nsplit > 1u && j0 + lid < jn) {
      let base = (query_row(b, hk, j0 + lid) * p.nsplit + c) * (p.d + 2u);
      partials[base] = m_run;
      partials[base + 1u] = l_run;
    }
  }
  workgroupBarrier();
  for (var i = 0u; i < RPT; i++) {
    let j = j0 + rg * RPT + i;
    if (j >= jn) {
      break;
    }
    let qr = query_row(b, hk, j);
    let inv = 1.0 / l_sh[rg * RPT + i];
    for (var jd = 0u; jd < DPT_MAX; jd++) {
      let d = dt + DT * jd;
      if (d < p.d) {
        if (p.nsplit > 1u) {
          partials[(qr * p.nsplit + c) * (p.d + 2u) + 2u + d] = acc[i * DPT_MAX + jd];
        } else {
          out[qr * p.d + d] = acc[i * DPT_MAX + jd] * inv;
        }
      }
    }
  }
}

// Merges the nsplit partials of query row r: M = max m_c, L = Σ l_c exp(m_c - M), out = Σ acc_c exp(m_c - M) / L.
// A split that saw no key has m = NEG_INF, l = 0, acc = 0 and weighs nothing.
@compute @workgroup_size(64)
fn combine(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.rows) {
    return;
  }
  let stride = p.d + 2u;
  let base = r * p.nsplit * stride;
  var mx = NEG_INF;
  for (var c = 0u; c < p.nsplit; c++) {
    mx = max(mx, partials[base + c * stride]);
  }
  var l = 0.0;
  for (var c = 0u; c < p.nsplit; c++) {
    l += partials[base + c * stride + 1u] * exp(partials[base + c * stride] - mx);
  }
  let inv = 1.0 / l;
  for (var d = lid; d < p.d; d += WG) {
    var acc = 0.0;
    for (var c = 0u; c < p.nsplit; c++) {
      acc += partials[base + c * stride + 2u + d] * exp(partials[base + c * stride] - mx);
    }
    out[r * p.d + d] = acc * inv;
  }
}
