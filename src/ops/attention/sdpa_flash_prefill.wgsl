// llama.sdpa_with_kv_cache, register-blocked flash-attention prefill route (S > 1, D % 4 == 0, D <= 64): online
// softmax over key tiles, no score buffer. Reference: Dao et al., "FlashAttention" (2022), "FlashAttention-2"
// (2023: rows owned by invocations, rescale the accumulator once per tile).
//
// Work split. For one batch b and kv head hk the query rows of its GQA group are j = s*G + g (token s, query head
// hk*G + g), so the G heads of a token share every K/V tile. A workgroup of WG = TY x TX = 16 x 8 invocations takes
// BR = TY*RPT consecutive rows j and walks the keys its last row may see in tiles of BC = TX*KPT = 32 keys:
//   w = (b*Hkv + hk)*blocks + blk.
// Invocation (ty, tx) owns rows ty*RPT + i (i < RPT) in both phases, so a row's softmax state stays in registers:
//   1. stage the tile's K rows (vec4, coalesced) in KP;
//   2. scores: an RPT x KPT register tile, keys tx + TX*k, q pre-scaled (staged once in Qs);
//      only tiles that reach past the keys the block's first row sees are masked per element (causal diagonal,
//      the context end); tiles past the last row's keys are never visited;
//   3. row max over the TX invocations of a row through Mx; rescale factor alpha = exp(m - m_new),
//      p = exp(s - m_new), the invocation's partial row sum l (reduced once at the end);
//   4. p into KP (the K tile is dead by then), then P·V: acc (RPT rows x DC vec4 columns tx + TX*c) += p * V
//      with V read as vec4 from the cache (the TY row groups share it through the cache hierarchy).
// Layouts (row-major): q, out [B, S, Hq, D]; k_cache, v_cache [B, C_max, Hkv, D] (bound as vec4: D % 4 == 0).
// Variant (override RPT, rows per invocation): 4 (BR 64), 2 (BR 32) or 1 (BR 16); the host's blocks follow it.
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k_cache : array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> v_cache : array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out : array<vec4<f32>>;
@group(0) @binding(4) var<uniform> p : Params;

// Params, group_size, visible, query_row (chunk and nsplit unused here).
#include "ops/attention/sdpa_flash_common.wgsl"

override RPT : u32 = 4u;       // rows per invocation (1, 2 or 4)
const TX : u32 = 8u;           // key lanes (scores) and vec4 column lanes (P·V) of a row group
const TY : u32 = 16u;          // row groups
const WG : u32 = 128u;         // TX * TY
const KPT : u32 = 4u;          // keys per invocation in the score phase
const BC : u32 = 32u;          // TX * KPT keys per tile
const DC : u32 = 2u;           // vec4 columns per invocation in P·V: D4 <= TX * DC = 16
const PS : u32 = 17u;          // KP row stride of the p tile (TY + 1: no bank conflicts on its writes)
const NEG_INF : f32 = -3.402823e38;
override BR : u32 = TY * RPT;  // rows per block

var<workgroup> Qs : array<vec4<f32>, 1088>;  // [BR <= 64][D4 + 1] (scaled q; the pad avoids bank conflicts)
var<workgroup> KP : array<vec4<f32>, 544>;   // K tile [BC][D4 + 1], then p tile [BC][PS] (rows of a group in .xyzw)
var<workgroup> Mx : array<f32, 512>;         // [BR][TX]: partial row maxima, at the end partial row sums

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let w = linear_workgroup(wid, nwg);
  let batches = p.rows / (p.seq * p.hq);
  if (w >= batches * p.hkv * p.blocks) {
    return;  // uniform per workgroup
  }
  let blk = w % p.blocks;
  let bh = w / p.blocks;
  let hk = bh % p.hkv;
  let b = bh / p.hkv;
  let nrows = p.seq * group_size();
  let j0 = blk * BR;
  let jn = min(j0 + BR, nrows);              // rows j0 .. jn-1 are real
  let d4n = p.d / 4u;
  let qst = d4n + 1u;                        // Qs / K tile row stride
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
      v = q[query_row(b, hk, j0 + r) * d4n + c] * p.scale;
    }
    Qs[r * qst + c] = v;
  }

  let t_end = visible(jn - 1u);  // the last row sees the most keys
  let t_full = visible(j0);      // keys every row of the block sees
  var acc : array<vec4<f32>, 8>;  // [RPT][DC]
  var m_run : array<f32, 4>;
  var l_run : array<f32, 4>;
  for (var i = 0u; i < 4u; i++) {
    m_run[i] = NEG_INF;
    l_run[i] = 0.0;
  }
  for (var i = 0u; i < 8u; i++) {
    acc[i] = vec4<f32>(0.0);
  }

  for (var t0 = 0u; t0 < t_end; t0 += BC) {
    // 1. the K tile (zero past the context end).
    for (var i = lid; i < BC * d4n; i += WG) {
      let kk = i / d4n;
      let c = i % d4n;
      var v = vec4<f32>(0.0);
      if (t0 + kk < t_end) {
        v = k_cache[kv0 + (t0 + kk) * ks4 + c];
      }
      KP[kk * qst + c] = v;
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
        let vis = visible(j0 + r0 + i);
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
      alpha[i] = exp(m_run[i] - m_new);
      m_run[i] = m_new;
      var sum = 0.0;
      for (var k = 0u; k < KPT; k++) {
        let sv = s[i * KPT + k];
        let e = select(exp(sv - m_new), 0.0, sv == NEG_INF);
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
    let nk = min(BC, t_end - t0);
    for (var kk = 0u; kk < nk; kk++) {
      let pv = KP[kk * PS + ty];
      let vb = kv0 + (t0 + kk) * ks4;
      for (var c = 0u; c < DC; c++) {
        let col = tx + TX * c;
        if (col < d4n) {
          let vv = v_cache[vb + col];
          for (var i = 0u; i < RPT; i++) {
            acc[i * DC + c] += pv[i] * vv;
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
      let inv = 1.0 / l;
      let ob = query_row(b, hk, j) * d4n;
      for (var c = 0u; c < DC; c++) {
        let col = tx + TX * c;
        if (col < d4n) {
          out[ob + col] = acc[i * DC + c] * inv;
        }
      }
    }
  }
}
