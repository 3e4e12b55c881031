// llama.sdpa_with_kv_cache, register-blocked flash-attention prefill route (S > 1, D % 4 == 0, D <= 128): online
// softmax over key tiles, no score buffer. Reference: Dao et al., "FlashAttention" (2022), "FlashAttention-2"
// (2023: rows owned by invocations, rescale the accumulator once per tile), "Flash-Decoding" (2023: split keys).
//
// Work split. For one batch b and kv head hk the query rows of its GQA group are j = s*G + g (token s, query head
// hk*G + g), so the G heads of a token share every K/V tile. A workgroup of WG = TY x TX = 16 x 8 invocations takes
// BR = TY*RPT consecutive rows j and one key range (split c of nsplit: keys [c*chunk, (c+1)*chunk), chunk a
// multiple of BC) of the keys its last row may see, in tiles of BC = TX*KPT = 32 keys:
//   w = ((b*Hkv + hk)*blocks + blk)*nsplit + c.
// Invocation (ty, tx) owns rows ty*RPT + i (i < RPT) in both phases, so a row's softmax state stays in registers:
//   1. stage the tile's K rows (and with VT its V rows; vec4, coalesced, zero past the split's end) in KP (Vs);
//   2. scores: an RPT x KPT register tile, keys tx + TX*k, q pre-scaled by scale * log2(e) (staged once in Qs),
//      so the softmax runs on exp2; only tiles that reach past the keys the block's first row sees are masked per
//      element (causal diagonal, the context end); tiles past the last row's keys are never visited;
//   3. row max over the TX invocations of a row through Mx; rescale factor alpha = exp2(m - m_new),
//      p = exp2(s - m_new), the invocation's partial row sum l (reduced once at the end);
//   4. p into KP (the K tile is dead by then), then P·V: acc (RPT rows x DC vec4 columns tx + TX*c) += p * V;
//      VT: over all BC keys of the tile (p is 0 past a row's keys) with V from Vs; else over the tile's keys
//      with V read as vec4 from the cache (the TY row groups share it through the cache hierarchy).
// nsplit == 1: out = acc / l. nsplit > 1: (acc, m, l) of each row to partials, then `combine` merges the splits
// a row sees (a row's splits past its last visible key are neither written nor read).
// Layouts (row-major): q, out [B, S, Hq, D]; k_cache, v_cache [B, C_max, Hkv, D] (bound as KvVec4 of the prelude
// kv_f32.wgsl or kv_f16.wgsl: D % 4 == 0);
// partials [B*S*Hq][nsplit][D4 + 1] vec4: acc, then (m, l, 0, 0) (m in log2 units).
// Overrides: RPT rows per invocation 4 (BR 64), 2 (BR 32) or 1 (BR 16), the host's blocks follow it; D4 = D / 4
// (<= 32; DC = ceil(D4 / TX) vec4 columns per invocation), which also sizes the workgroup arrays (smaller blocks and heads take less workgroup memory); VT 1:
// stage V tiles too (where the workgroup memory allows: the host's rule), 0: read V from the cache.
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k_cache : array<KvVec4>;
@group(0) @binding(2) var<storage, read> v_cache : array<KvVec4>;
@group(0) @binding(3) var<storage, read_write> partials : array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> out : array<vec4<f32>>;
@group(0) @binding(5) var<uniform> p : Params;

// Params, group_size, visible, query_row.
#include "ops/attention/sdpa_flash_common.wgsl"

override RPT : u32 = 4u;       // rows per invocation (1, 2 or 4)
override D4 : u32 = 16u;       // head dim / 4 (<= 32)
override VT : u32 = 1u;        // 1: V tiles in workgroup memory
const TX : u32 = 8u;           // key lanes (scores) and vec4 column lanes (P·V) of a row group
const TY : u32 = 16u;          // row groups
const WG : u32 = 128u;         // TX * TY
const KPT : u32 = 4u;          // keys per invocation in the score phase
const BC : u32 = 32u;          // TX * KPT keys per tile
override DC : u32 = (D4 + TX - 1u) / TX;  // vec4 columns per invocation in P·V (<= 4; RPT * DC <= 16)
const PS : u32 = 17u;          // KP row stride of the p tile (TY + 1: no bank conflicts on its writes)
const NEG_INF : f32 = -3.402823e38;
const LOG2E : f32 = 1.4426950408889634;
override BR : u32 = TY * RPT;  // rows per block
override QST : u32 = D4 + 1u;  // Qs / K tile row stride (the pad avoids bank conflicts)

var<workgroup> Qs : array<vec4<f32>, BR * QST>;          // [BR][QST] (scaled q)
var<workgroup> KP : array<vec4<f32>, BC * max(QST, PS)>;  // K tile [BC][QST], then p tile [BC][PS] (rows in .xyzw)
var<workgroup> Vs : array<vec4<f32>, max(BC * D4 * VT, 1u)>;  // V tile [BC][D4] (VT)
var<workgroup> Mx : array<f32, BR * TX>;                 // [BR][TX]: partial row maxima, at the end partial row sums

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let w = linear_workgroup(wid, nwg);
  let batches = p.rows / (p.seq * p.hq);
  if (w >= batches * p.hkv * p.blocks * p.nsplit) {
    return;  // uniform per workgroup
  }
  let split = w % p.nsplit;
  let blk = (w / p.nsplit) % p.blocks;
  let bh = w / (p.nsplit * p.blocks);
  let hk = bh % p.hkv;
  let b = bh / p.hkv;
  let nrows = p.seq * group_size();
  let j0 = blk * BR;
  let jn = min(j0 + BR, nrows);              // rows j0 .. jn-1 are real
  let k0 = split * p.chunk;                  // the split's keys k0 .. k_hi-1
  let t_end = visible(jn - 1u);              // the last row sees the most keys
  if (k0 >= t_end) {
    return;  // uniform: no row of the block sees this split
  }
  let k_hi = min(k0 + p.chunk, t_end);
  let d4n = D4;
  let qst = QST;
  let ks4 = p.hkv * d4n;                     // K/V row stride (vec4)
  let kv0 = (b * p.c_max * p.hkv + hk) * d4n;
  let tx = lid % TX;
  let ty = lid / TX;
  let r0 = ty * RPT;                         // the invocation's first block row

  for (var i = lid; i < BR * d4n; i += WG) {
    let r = i / d4n;
    let c = i % d4n;
    var v = vec4<f32>(0.0);
    if (j0 + r < jn) {
      v = q[query_row(b, hk, j0 + r) * d4n + c] * (p.scale * LOG2E);
    }
    Qs[r * qst + c] = v;
  }

  let t_full = min(visible(j0), k_hi);  // keys of the split every row of the block sees
  var acc : array<vec4<f32>, 16>;  // [RPT][DC]
  var m_run : array<f32, 4>;
  var l_run : array<f32, 4>;
  for (var i = 0u; i < 4u; i++) {
    m_run[i] = NEG_INF;
    l_run[i] = 0.0;
  }
  for (var i = 0u; i < RPT * DC; i++) {
    acc[i] = vec4<f32>(0.0);
  }

  for (var t0 = k0; t0 < k_hi; t0 += BC) {
    // 1. the K and V tiles (zero past the split's end).
    for (var i = lid; i < BC * d4n; i += WG) {
      let kk = i / d4n;
      let c = i % d4n;
      var kv = vec4<f32>(0.0);
      var vv = vec4<f32>(0.0);
      if (t0 + kk < k_hi) {
        let at = kv0 + (t0 + kk) * ks4 + c;
        kv = kv_vec4(k_cache[at]);
        if (VT != 0u) {
          vv = kv_vec4(v_cache[at]);
        }
      }
      KP[kk * qst + c] = kv;
      if (VT != 0u) {
        Vs[i] = vv;
      }
    }
    workgroupBarrier();
    // 2. scores s[i][k] of rows r0 + i and keys t0 + tx + TX*k.
    var s : array<f32, 16>;  // [RPT][KPT]
    for (var e = 0u; e < RPT * KPT; e++) {
      s[e] = 0.0;
    }
    for (var d4 = 0u; d4 < d4n; d4++) {
      var kv : array<vec4<f32>, 4>;
      for (var k = 0u; k < KPT; k++) {
        kv[k] = KP[(tx + TX * k) * qst + d4];
      }
      for (var i = 0u; i < RPT; i++) {
        let qv = Qs[(r0 + i) * qst + d4];
        for (var k = 0u; k < KPT; k++) {
          s[i * KPT + k] += dot(qv, kv[k]);
        }
      }
    }
    if (t0 + BC > t_full) {  // uniform: the tile reaches keys some row may not see
      for (var i = 0u; i < RPT; i++) {
        let vis = min(visible(j0 + r0 + i), k_hi);
        for (var k = 0u; k < KPT; k++) {
          s[i * KPT + k] = select(NEG_INF, s[i * KPT + k], t0 + tx + TX * k < vis);
        }
      }
    }
    // 3. online softmax: the row max over the TX invocations of the row.
    for (var i = 0u; i < RPT; i++) {
      var mloc = s[i * KPT];
      for (var k = 1u; k < KPT; k++) {
        mloc = max(mloc, s[i * KPT + k]);
      }
      Mx[(r0 + i) * TX + tx] = mloc;
    }
    workgroupBarrier();
    var alpha : array<f32, 4>;
    for (var i = 0u; i < RPT; i++) {
      var mt = Mx[(r0 + i) * TX];
      for (var x = 1u; x < TX; x++) {
        mt = max(mt, Mx[(r0 + i) * TX + x]);
      }
      let m_new = max(m_run[i], mt);
      alpha[i] = exp2(m_run[i] - m_new);
      m_run[i] = m_new;
      var sum = 0.0;
      for (var k = 0u; k < KPT; k++) {
        let sv = s[i * KPT + k];
        let e = select(exp2(sv - m_new), 0.0, sv == NEG_INF);
        s[i * KPT + k] = e;
        sum += e;
      }
      l_run[i] = l_run[i] * alpha[i] + sum;
    }
    // 4. p into KP (every K read finished before the barrier above), then acc = acc * alpha + P·V.
    for (var k = 0u; k < KPT; k++) {
      var pv = vec4<f32>(0.0);
      for (var i = 0u; i < RPT; i++) {
        pv[i] = s[i * KPT + k];
      }
      KP[(tx + TX * k) * PS + ty] = pv;
    }
    workgroupBarrier();
    for (var i = 0u; i < RPT; i++) {
      for (var c = 0u; c < DC; c++) {
        acc[i * DC + c] *= alpha[i];
      }
    }
    if (VT != 0u) {
      for (var kk = 0u; kk < BC; kk++) {
        let pv = KP[kk * PS + ty];
        for (var c = 0u; c < DC; c++) {
          let col = tx + TX * c;
          if (col < d4n) {
            let vv = Vs[kk * d4n + col];
            for (var i = 0u; i < RPT; i++) {
              acc[i * DC + c] += pv[i] * vv;
            }
          }
        }
      }
    } else {
      let nk = min(BC, k_hi - t0);
      for (var kk = 0u; kk < nk; kk++) {
        let pv = KP[kk * PS + ty];
        let vb = kv0 + (t0 + kk) * ks4;
        for (var c = 0u; c < DC; c++) {
          let col = tx + TX * c;
          if (col < d4n) {
            let vv = kv_vec4(v_cache[vb + col]);
            for (var i = 0u; i < RPT; i++) {
              acc[i * DC + c] += pv[i] * vv;
            }
          }
        }
      }
    }
    workgroupBarrier();
  }

  for (var i = 0u; i < RPT; i++) {
    Mx[(r0 + i) * TX + tx] = l_run[i];
  }
  workgroupBarrier();
  for (var i = 0u; i < RPT; i++) {
    let j = j0 + r0 + i;
    if (j < jn) {
      var l = 0.0;
      for (var x = 0u; x < TX; x++) {
        l += Mx[(r0 + i) * TX + x];
      }
      let r = query_row(b, hk, j);
      if (p.nsplit == 1u) {
        let inv = 1.0 / l;
        for (var c = 0u; c < DC; c++) {
          let col = tx + TX * c;
          if (col < d4n) {
            out[r * d4n + col] = acc[i * DC + c] * inv;
          }
        }
      } else if (k0 < visible(j)) {  // the splits the row sees (combine reads these)
        let pb = (r * p.nsplit + split) * qst;
        for (var c = 0u; c < DC; c++) {
          let col = tx + TX * c;
          if (col < d4n) {
            partials[pb + col] = acc[i * DC + c];
          }
        }
        if (tx == 0u) {
          partials[pb + d4n] = vec4<f32>(m_run[i], l, 0.0, 0.0);
        }
      }
    }
  }
}

// Merges the splits of query rows r = wg*CR + lid / CL (the first ceil(visible / chunk) splits of the row's
// token): out = sum_c acc_c * 2^(m_c - m) / sum_c l_c * 2^(m_c - m), m = max_c m_c. CL lanes over the D4 vec4.
const CL : u32 = 16u;
const CR : u32 = 4u;  // rows per workgroup (64 / CL)

@compute @workgroup_size(64)
fn combine(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg) * CR + lid / CL;
  if (r >= p.rows) {
    return;
  }
  let s = (r / p.hq) % p.seq;
  var vis = p.pos + p.seq;
  if (p.causal != 0u) {
    vis = p.pos + s + 1u;
  }
  let n = min(p.nsplit, (vis + p.chunk - 1u) / p.chunk);
  let base = r * p.nsplit * QST;
  var mx = NEG_INF;
  for (var c = 0u; c < n; c++) {
    mx = max(mx, partials[base + c * QST + D4].x);
  }
  var l = 0.0;
  for (var c = 0u; c < n; c++) {
    let ml = partials[base + c * QST + D4];
    l += ml.y * exp2(ml.x - mx);
  }
  let inv = 1.0 / l;
  for (var col = lid % CL; col < D4; col += CL) {
    var acc = vec4<f32>(0.0);
    for (var c = 0u; c < n; c++) {
      acc += partials[base + c * QST + col] * exp2(partials[base + c * QST + D4].x - mx);
    }
    out[r * D4 + col] = acc * inv;
  }
}
