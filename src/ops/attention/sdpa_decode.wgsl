// llama.sdpa_with_kv_cache, decode route (S == 1, D a multiple of 4): split-KV flash decoding with the G query
// heads of a kv head in one workgroup, so every K/V row is read once per split. Reference: Dao et al.,
// "Flash-Decoding for long-context inference" (2023); the online softmax of Milakov & Gimelshein (2018).
//
// Work split. For batch b and kv head hk, the query heads hk*G + blk*HB + i (i < HB, G = Hq/Hkv) form block blk;
// a workgroup takes one block and one key range (split c of nsplit):
//   w = ((b*Hkv + hk)*blocks + blk)*nsplit + c;  keys [c*chunk, min((c+1)*chunk, ctx)), ctx = input_pos + 1.
// Per tile of TK (= WG) keys:
//   1. scores: invocation lid takes key t0 + lid and computes q_i·k_t for the HB heads (q pre-scaled, staged in
//      Qs; K read as vec4 rows) into Ss[i][lid];
//   2. P·V: invocation (slot, d4) = (lid / D4, lid % D4), slot < KS, walks the tile's keys slot, slot + KS, ...
//      with its own online softmax per head (m, l) and acc[i] (4 dims d4*4 ..), V read as vec4 (coalesced).
// No per-tile reduction and two barriers per tile. At the end the KS slot states merge through workgroup memory:
// nsplit == 1 writes out = acc / l; nsplit > 1 writes the split's (m, l) and unnormalized acc to partials and
// `combine` (one workgroup per query row, reading only the nsplit live splits) combines them.
// Partials layout (vec4): acc at [(row*nsplit + c)*D4 + d4], (m, l, 0, 0) at [ml_base + row*nsplit + c] with
// ml_base = rows*nsplit*D4. Rows: row = b*Hq + h (S == 1).
// Layouts (row-major): q, out [B, 1, Hq, D]; k_cache, v_cache [B, C_max, Hkv, D].
// Override HB: query heads per block, 1..8 (the host picks min(G, 8)).
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k_cache : array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> v_cache : array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> partials : array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> out : array<vec4<f32>>;
@group(0) @binding(5) var<uniform> p : Params;

struct Params {
  batches : u32,  // B
  hq : u32,
  hkv : u32,
  d4 : u32,       // head dim / 4
  ctx : u32,      // visible keys: input_pos + 1
  c_max : u32,
  chunk : u32,    // keys per split
  nsplit : u32,   // splits (1: out written directly, no merge)
  blocks : u32,   // head blocks per kv head: ceil(G / HB)
  scale : f32,
  pad0 : u32,
  pad1 : u32,
}

override HB : u32 = 4u;
const WG : u32 = 128u;
const TK : u32 = WG;          // keys per tile
const MAX_SLOTS : u32 = 16u;  // P·V key slots per workgroup (KS = min(WG / D4, MAX_SLOTS))
const NEG_INF : f32 = -3.402823e38;

var<workgroup> Qs : array<vec4<f32>, 512>;  // [HB][D4] scaled q; after the key loop: [KS][D4] slot accumulators
var<workgroup> Ss : array<f32, 1024>;       // [HB][TK] scores of the tile
var<workgroup> Ms : array<f32, 128>;        // [KS][HB] slot maxima
var<workgroup> Ls : array<f32, 128>;        // [KS][HB] slot sums

fn slots() -> u32 { return min(WG / p.d4, MAX_SLOTS); }

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let w = linear_workgroup(wid, nwg);
  if (w >= p.batches * p.hkv * p.blocks * p.nsplit) {
    return;  // uniform per workgroup
  }
  let c = w % p.nsplit;
  let blk = (w / p.nsplit) % p.blocks;
  let bh = w / (p.nsplit * p.blocks);
  let hk = bh % p.hkv;
  let b = bh / p.hkv;
  let g = p.hq / p.hkv;
  let h0 = hk * g + blk * HB;                 // first query head of the block
  let nh = min(HB, g - blk * HB);             // its real heads
  let d4n = p.d4;
  let ks = p.hkv * d4n;                       // K/V row stride (vec4)
  let kv0 = (b * p.c_max * p.hkv + hk) * d4n;
  let row0 = b * p.hq + h0;                   // query row of head i: row0 + i

  for (var i = lid; i < HB * d4n; i += WG) {
    let hi = i / d4n;
    var qv = vec4<f32>(0.0);
    if (hi < nh) {
      qv = q[(row0 + hi) * d4n + i % d4n] * p.scale;
    }
    Qs[i] = qv;
  }
  let nslot = slots();
  let slot = lid / d4n;
  let d4 = lid % d4n;
  let pv_on = slot < nslot;
  var m : array<f32, 8>;
  var l : array<f32, 8>;
  var acc : array<vec4<f32>, 8>;
  for (var i = 0u; i < HB; i++) {
    m[i] = NEG_INF;
    l[i] = 0.0;
    acc[i] = vec4<f32>(0.0);
  }
  let t_begin = c * p.chunk;
  let t_end = min(t_begin + p.chunk, p.ctx);
  workgroupBarrier();

  for (var t0 = t_begin; t0 < t_end; t0 += TK) {
    // 1. scores of key t0 + lid for the block's heads.
    let t = t0 + lid;
    var s : array<f32, 8>;
    for (var i = 0u; i < HB; i++) {
      s[i] = NEG_INF;
    }
    if (t < t_end) {
      for (var i = 0u; i < HB; i++) {
        s[i] = 0.0;
      }
      let kb = kv0 + t * ks;
      for (var e = 0u; e < d4n; e++) {
        let kv = k_cache[kb + e];
        for (var i = 0u; i < HB; i++) {
          s[i] += dot(Qs[i * d4n + e], kv);
        }
      }
    }
    for (var i = 0u; i < HB; i++) {
      Ss[i * TK + lid] = s[i];
    }
    workgroupBarrier();
    // 2. this slot's keys of the tile: one rescale per head, then exp-weighted V rows.
    if (pv_on) {
      let nk = min(TK, t_end - t0);
      for (var i = 0u; i < HB; i++) {
        var mt = m[i];
        for (var kk = slot; kk < nk; kk += nslot) {
          mt = max(mt, Ss[i * TK + kk]);
        }
        let a = exp(m[i] - mt);
        l[i] *= a;
        acc[i] *= a;
        m[i] = mt;
      }
      for (var kk = slot; kk < nk; kk += nslot) {
        let vv = v_cache[kv0 + (t0 + kk) * ks + d4];
        for (var i = 0u; i < HB; i++) {
          let e = exp(Ss[i * TK + kk] - m[i]);
          l[i] += e;
          acc[i] += e * vv;
        }
      }
    }
    workgroupBarrier();
  }

  // Merge the slots: M = max over slots, weights exp(m_s - M).
  if (pv_on && d4 == 0u) {
    for (var i = 0u; i < HB; i++) {
      Ms[slot * HB + i] = m[i];
      Ls[slot * HB + i] = l[i];
    }
  }
  workgroupBarrier();
  for (var i = 0u; i < HB; i++) {
    var mx = NEG_INF;
    for (var sl = 0u; sl < nslot; sl++) {
      mx = max(mx, Ms[sl * HB + i]);
    }
    if (pv_on) {
      Qs[slot * d4n + d4] = acc[i] * exp(m[i] - mx);
    }
    workgroupBarrier();
    if (slot == 0u && i < nh) {
      var sum = vec4<f32>(0.0);
      var lsum = 0.0;
      for (var sl = 0u; sl < nslot; sl++) {
        sum += Qs[sl * d4n + d4];
        lsum += Ls[sl * HB + i] * exp(Ms[sl * HB + i] - mx);
      }
      let row = row0 + i;
      if (p.nsplit == 1u) {
        out[row * d4n + d4] = sum / lsum;
      } else {
        partials[(row * p.nsplit + c) * d4n + d4] = sum;
        if (d4 == 0u) {
          partials[p.batches * p.hq * p.nsplit * d4n + row * p.nsplit + c] = vec4<f32>(mx, lsum, 0.0, 0.0);
        }
      }
    }
    workgroupBarrier();
  }
}

// Combines the nsplit partials of query row r (one workgroup per row, invocation d4 < D4 per vec4 of dims):
// M = max m_c, out = Σ acc_c exp(m_c - M) / Σ l_c exp(m_c - M). A split that saw no key has m = NEG_INF, l = 0.
@compute @workgroup_size(64)
fn combine(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
         @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.batches * p.hq) {
    return;
  }
  let ml0 = p.batches * p.hq * p.nsplit * p.d4 + r * p.nsplit;
  var mx = NEG_INF;
  for (var c = 0u; c < p.nsplit; c++) {
    mx = max(mx, partials[ml0 + c].x);
  }
  for (var d4 = lid; d4 < p.d4; d4 += 64u) {
    var acc = vec4<f32>(0.0);
    var l = 0.0;
    for (var c = 0u; c < p.nsplit; c++) {
      let ml = partials[ml0 + c];
      let wgt = exp(ml.x - mx);
      l += ml.y * wgt;
      acc += partials[(r * p.nsplit + c) * p.d4 + d4] * wgt;
    }
    out[r * p.d4 + d4] = acc / l;
  }
}
