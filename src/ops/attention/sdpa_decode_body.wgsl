// The split-KV decode attention body shared by llama.sdpa_with_kv_cache's decode route (sdpa_decode.wgsl) and
// wgrt.sdpa_batched's decode route (sdpa_batched_decode.wgsl): one workgroup takes the HB-head block of query
// heads of one kv head (the G query heads of a kv head share every K/V row load) over one key range of one
// sequence. Reference: Dao et al., "Flash-Decoding for long-context inference" (2023); the online softmax of
// Milakov & Gimelshein (2018).
// Per tile of TK (= WG) keys:
//   1. scores: invocation lid takes key t0 + lid and computes q_i·k_t for the HB heads (q pre-scaled, staged in
//      Qs; K read as vec4 rows) into Ss[i][lid];
//   2. P·V: invocation (slot, d4) = (lid / D4, lid % D4), slot < KS, walks the tile's keys slot, slot + KS, ...
//      with its own online softmax per head (m, l) and acc[i] (4 dims d4*4 ..), V read as vec4 (coalesced).
// No per-tile reduction and two barriers per tile. At the end the KS slot states merge through workgroup memory
// and the including kernel's store_head(row, c, d4, sum, m, l) takes each real head's unnormalized sum (out =
// sum / l, or a split's partial). Split partials (vec4): acc at [(row*stride + c)*D4 + d4], (m, l, 0, 0) at
// [ml_base + row*stride + c]; combine_splits merges the live ones.
// The including kernel declares the bindings q (read, array<vec4<f32>>), k_cache, v_cache (read, array<KvVec4>
// of the prelude kv_f32.wgsl or kv_f16.wgsl: the cache's element type), partials, out
// (read_write, array<vec4<f32>>) and fn store_head(row : u32, c : u32, d4 : u32, sum : vec4<f32>, m : f32, l : f32).
// Overrides: HB query heads per block, 1..8 (the host picks min(G, 8)); D4 = D / 4.

#include "ops/attention/sdpa_decode_partials.wgsl"

override HB : u32 = 4u;
override D4 : u32 = 16u;      // head dim / 4 (a constant, so the K-row loop unrolls and its loads issue together)
const WG : u32 = 128u;
const TK : u32 = WG;          // keys per tile
const MAX_SLOTS : u32 = 16u;  // P·V key slots per workgroup (KS = min(WG / D4, MAX_SLOTS))
const NEG_INF : f32 = -3.402823e38;

var<workgroup> Qs : array<vec4<f32>, 512>;  // [HB][D4] scaled q; after the key loop: [KS][D4] slot accumulators
var<workgroup> Ss : array<f32, 1024>;       // [HB][TK] scores of the tile
var<workgroup> Ms : array<f32, 128>;        // [KS][HB] slot maxima
var<workgroup> Ls : array<f32, 128>;        // [KS][HB] slot sums

fn pv_slots() -> u32 { return min(WG / D4, MAX_SLOTS); }

// Query rows row0 + i (i < nh <= HB, q rows of D4 vec4) against the key rows t in [t_begin, t_end) whose vec4
// element 0 is at kv0 + t * ks in k_cache / v_cache; c: the split index handed to store_head. Call with the whole
// workgroup (uniform control flow).
fn decode_block(row0 : u32, nh : u32, kv0 : u32, ks : u32, t_begin : u32, t_end : u32, scale : f32, c : u32, lid : u32) {
  let d4n = D4;
  for (var i = lid; i < HB * d4n; i += WG) {
    let hi = i / d4n;
    var qv = vec4<f32>(0.0);
    if (hi < nh) {
      qv = q[(row0 + hi) * d4n + i % d4n] * scale;
    }
    Qs[i] = qv;
  }
  let nslot = pv_slots();
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
        let kv = kv_vec4(k_cache[kb + e]);
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
      // Four keys per step, their V loads issued together (clamped to a real key, weight 0 past nk).
      let vb = kv0 + t0 * ks + d4;
      for (var kk = slot; kk < nk; kk += 4u * nslot) {
        var vv : array<vec4<f32>, 4>;
        for (var j = 0u; j < 4u; j++) {
          vv[j] = kv_vec4(v_cache[vb + min(kk + j * nslot, nk - 1u) * ks]);
        }
        for (var j = 0u; j < 4u; j++) {
          let kj = kk + j * nslot;
          let kc = min(kj, nk - 1u);
          for (var i = 0u; i < HB; i++) {
            let e = select(0.0, exp(Ss[i * TK + kc] - m[i]), kj < nk);
            l[i] += e;
            acc[i] += e * vv[j];
          }
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
      store_head(row0 + i, c, d4, sum, mx, lsum);
    }
    workgroupBarrier();
  }
}

// Combines the first `live` split partials of query row r (partials row stride `stride` splits, D4 = d4n vec4
// per row, (m, l) at ml_base + r * stride + c), invocations lid of a 64-wide workgroup (uniform control flow;
// live <= kMaxKeySplits = 64): M = max m_c, out = Σ acc_c exp(m_c - M) / Σ l_c exp(m_c - M). A split that saw no
// key has m = NEG_INF, l = 0. Up to COMBINE_LOOP splits: one loop over the splits per vec4 dim (combine_few). More:
// every load issued in parallel (invocation c loads split c's (m, l); G = 64 / d4n groups of invocations take the
// splits g, g + G, ..., their loads issued before the (m, l) ones are merged) and merged through workgroup memory,
// since the loop waits out one memory latency per split (H200 run 28c, 1B Q4_0 decode at depth 2048, 17 splits:
// 857 -> 875 tok/s; at 2-4 splits the loop measured faster: 1,014 vs 1,004 at depth 128). The host sets
// COMBINE_LOOP from the tuning policy (sdpa_combine_loop_splits: 4 on GPUs; every split on CPU adapters, where the
// workgroup merge made lavapipe decode 25% slower).
override COMBINE_LOOP : u32 = 64u;
var<workgroup> Cm : array<f32, 64>;         // [c] split maxima
var<workgroup> Cw : array<f32, 64>;         // [c] weights exp(m_c - M) (0 past live)
var<workgroup> Cl : array<f32, 64>;         // [c] l_c * weight
var<workgroup> Ca : array<vec4<f32>, 64>;   // [g][d4] group sums
const CJ : u32 = 16u;                       // accumulator loads per invocation held in registers
fn combine_few(r : u32, stride : u32, live : u32, ml_base : u32, d4n : u32, lid : u32) {
  let ml0 = ml_base + r * stride;
  var mx = NEG_INF;
  for (var c = 0u; c < live; c++) {
    mx = max(mx, partials[ml0 + c].x);
  }
  for (var d4 = lid; d4 < d4n; d4 += 64u) {
    var acc = vec4<f32>(0.0);
    var l = 0.0;
    for (var c = 0u; c < live; c++) {
      let ml = partials[ml0 + c];
      let wgt = exp(ml.x - mx);
      l += ml.y * wgt;
      acc += partials[(r * stride + c) * d4n + d4] * wgt;
    }
    out[r * d4n + d4] = acc / l;
  }
}
fn combine_splits(r : u32, stride : u32, live : u32, ml_base : u32, d4n : u32, lid : u32) {
  if (live <= COMBINE_LOOP) {
    combine_few(r, stride, live, ml_base, d4n, lid);
    return;
  }
  // Group g's accumulator loads (splits g, g + ng, ... up to CJ of them, clamped to a live one) issue first, with
  // the (m, l) load: one memory latency for the whole merge where live <= CJ * ng (d4n 16: 64 splits; 32: 32).
  let ng = max(1u, 64u / d4n);  // groups of d4n invocations (d4n <= 64: D <= 256)
  let g = lid / d4n;
  let d4 = lid % d4n;
  var a : array<vec4<f32>, CJ>;
  if (g < ng) {
    for (var j = 0u; j < CJ; j++) {
      a[j] = partials[(r * stride + min(g + j * ng, live - 1u)) * d4n + d4];
    }
  }
  var ml = vec2<f32>(NEG_INF, 0.0);
  if (lid < live) {
    ml = partials[ml_base + r * stride + lid].xy;
  }
  Cm[lid] = ml.x;
  workgroupBarrier();
  var mx = NEG_INF;
  for (var c = 0u; c < live; c++) {
    mx = max(mx, Cm[c]);
  }
  let wgt = select(0.0, exp(ml.x - mx), lid < live);
  Cw[lid] = wgt;
  Cl[lid] = ml.y * wgt;
  workgroupBarrier();
  var lsum = 0.0;
  for (var c = 0u; c < live; c++) {
    lsum += Cl[c];
  }
  var gsum = vec4<f32>(0.0);
  if (g < ng) {
    for (var j = 0u; j < CJ; j++) {
      let c = g + j * ng;
      gsum += a[j] * select(0.0, Cw[min(c, 63u)], c < live);
    }
    for (var c = g + CJ * ng; c < live; c += ng) {  // splits past the registers (D 128 past 32, D 256 past 16)
      gsum += partials[(r * stride + c) * d4n + d4] * Cw[c];
    }
    if (ng == 1u) {
      out[r * d4n + d4] = gsum / lsum;
    }
  }
  if (ng > 1u) {
    Ca[lid] = gsum;
    workgroupBarrier();
    if (g == 0u) {
      var tot = vec4<f32>(0.0);
      for (var gg = 0u; gg < ng; gg++) {
        tot += Ca[gg * d4n + lid];
      }
      out[r * d4n + lid] = tot / lsum;
    }
  }
}
