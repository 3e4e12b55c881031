enable subgroups;
diagnostic(off, subgroup_uniformity);
// llama.sdpa_with_kv_cache, decode route on subgroups (S == 1, D a multiple of 4; the tuning policy's
// sdpa_decode_lanes on adapters with subgroups): sdpa_decode.wgsl's work split, Params, partials and combine
// dispatch, with another mapping of a workgroup's invocations onto its key range. References: Dao et al.,
// "Flash-Decoding for long-context inference" (2023); the online softmax of Milakov & Gimelshein (2018); lane
// groups summing a key's dot product by shuffles, as llama.cpp's Vulkan flash-attention shader does.
//
// Mapping. The 128 invocations form NG = 128 / DS key groups of DS lanes (DS consecutive ranks of one subgroup).
// Group g takes the keys t_begin + g + NG*j; lane l of a group owns the vec4 dims d4 = v*DS + l (v < VPL = D4 /
// DS) of each q, K and V row, so a group's lanes read each row's bytes together. Per step of U keys a lane issues
// the K and the V loads of its U keys at once, then
//   scores: its partial q·k for the HB heads, summed over the group's lanes by subgroupShuffleXor (every lane of
//     the group gets the same sums);
//   online softmax: each lane keeps the group's running max m and sum l per head and acc for its dims.
// The key loop has no workgroup memory and no barrier. Then the groups merge: within a subgroup by butterfly
// shuffles, across subgroups through workgroup memory (one barrier), and lanes (head, d4) store the head's sum
// through store_head (sdpa_decode_bindings.wgsl), as sdpa_decode.wgsl does.
// Needs every invocation active at the shuffles (128 is a multiple of the subgroup size) and subgroups of >= DS
// lanes; bounds the host checks (sdpa.cpp): HB * VPL <= 16, U * VPL <= 16, U * HB <= 32, and (128 / the smallest
// subgroup size) * HB * D4 <= 1024 (Xs).
// Overrides: HB query heads per block (1..8), D4 = D / 4, DS lanes per key group (a power of two dividing D4),
// U keys per lane per step.
#include "ops/common/index.wgsl"
#include "ops/common/subgroup_ids.wgsl"
#include "ops/attention/sdpa_decode_bindings.wgsl"

override HB : u32 = 4u;
override D4 : u32 = 16u;
override DS : u32 = 16u;
override U : u32 = 8u;
override VPL : u32 = D4 / DS;  // vec4 dims per lane
const WG : u32 = 128u;
override NG : u32 = WG / DS;   // key groups (derived; the host leaves it)
const NEG_INF : f32 = -3.402823e38;

var<workgroup> Xs : array<vec4<f32>, 1024>;  // [subgroup][HB][D4] each subgroup's merged acc
var<workgroup> Xm : array<f32, 256>;         // [subgroup][HB] its max
var<workgroup> Xl : array<f32, 256>;         // [subgroup][HB] its sum

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let wk = decode_work(linear_workgroup(wid, nwg), HB, D4);
  if (!wk.live) {
    return;  // uniform per workgroup
  }
  let ids = subgroup_ids();
  let lane = ids.lane % DS;
  let grp = ids.sgi * (ids.lanes / DS) + ids.lane / DS;

  // This lane's dims of the block's q rows, scaled (heads past nh repeat the first; never stored).
  var qv : array<vec4<f32>, 16>;  // [HB][VPL]
  var acc : array<vec4<f32>, 16>;
  var m : array<f32, 8>;
  var l : array<f32, 8>;
  for (var i = 0u; i < HB; i++) {
    let qrow = (wk.row0 + select(0u, i, i < wk.nh)) * D4 + lane;
    for (var v = 0u; v < VPL; v++) {
      qv[i * VPL + v] = q[qrow + v * DS] * p.scale;
      acc[i * VPL + v] = vec4<f32>(0.0);
    }
    m[i] = NEG_INF;
    l[i] = 0.0;
  }

  let per_group = (wk.t_end - wk.t_begin + NG - 1u) / NG;  // keys of the busiest group (uniform)
  for (var j0 = 0u; j0 < per_group; j0 += U) {
    // The step's K and V loads, issued together (a key past the range reads the last one, weight 0).
    var kr : array<KvVec4, 16>;  // [U][VPL]
    var vr : array<KvVec4, 16>;
    var ok : array<bool, 8>;
    for (var u = 0u; u < U; u++) {
      let t = wk.t_begin + grp + NG * (j0 + u);
      ok[u] = t < wk.t_end;
      let base = wk.kv0 + min(t, wk.t_end - 1u) * wk.ks + lane;
      for (var v = 0u; v < VPL; v++) {
        kr[u * VPL + v] = k_cache[base + v * DS];
        vr[u * VPL + v] = v_cache[base + v * DS];
      }
    }
    var s : array<f32, 32>;  // [U][HB] scores
    for (var u = 0u; u < U; u++) {
      for (var i = 0u; i < HB; i++) {
        var d = 0.0;
        for (var v = 0u; v < VPL; v++) {
          d += dot(qv[i * VPL + v], kv_vec4(kr[u * VPL + v]));
        }
        s[u * HB + i] = d;
      }
    }
    for (var off = DS / 2u; off > 0u; off /= 2u) {
      for (var e = 0u; e < U * HB; e++) {
        s[e] += subgroupShuffleXor(s[e], off);
      }
    }
    for (var i = 0u; i < HB; i++) {
      var mt = m[i];
      for (var u = 0u; u < U; u++) {
        mt = max(mt, select(NEG_INF, s[u * HB + i], ok[u]));
      }
      let a = exp(m[i] - mt);
      m[i] = mt;
      l[i] *= a;
      for (var v = 0u; v < VPL; v++) {
        acc[i * VPL + v] *= a;
      }
      for (var u = 0u; u < U; u++) {
        let e = select(0.0, exp(s[u * HB + i] - mt), ok[u]);
        l[i] += e;
        for (var v = 0u; v < VPL; v++) {
          acc[i * VPL + v] += e * kv_vec4(vr[u * VPL + v]);
        }
      }
    }
  }

  // Merge the key groups of a subgroup (lanes r and r ^ off hold the same dims of two groups).
  for (var off = DS; off < ids.lanes; off *= 2u) {
    for (var i = 0u; i < HB; i++) {
      let mo = subgroupShuffleXor(m[i], off);
      let lo = subgroupShuffleXor(l[i], off);
      let mx = max(m[i], mo);
      let a = exp(m[i] - mx);
      let ao = exp(mo - mx);
      l[i] = l[i] * a + lo * ao;
      m[i] = mx;
      for (var v = 0u; v < VPL; v++) {
        let xo = subgroupShuffleXor(acc[i * VPL + v], off);
        acc[i * VPL + v] = acc[i * VPL + v] * a + xo * ao;
      }
    }
  }
  // Then the subgroups, through workgroup memory: the first group of each writes its state.
  if (ids.lane < DS) {
    for (var i = 0u; i < HB; i++) {
      for (var v = 0u; v < VPL; v++) {
        Xs[(ids.sgi * HB + i) * D4 + v * DS + lane] = acc[i * VPL + v];
      }
      if (lane == 0u) {
        Xm[ids.sgi * HB + i] = m[i];
        Xl[ids.sgi * HB + i] = l[i];
      }
    }
  }
  workgroupBarrier();
  let nsg = atomicLoad(&sg_next);
  for (var e = lid; e < wk.nh * D4; e += WG) {
    let i = e / D4;
    let d4 = e % D4;
    var mx = NEG_INF;
    for (var g = 0u; g < nsg; g++) {
      mx = max(mx, Xm[g * HB + i]);
    }
    var sum = vec4<f32>(0.0);
    var ls = 0.0;
    for (var g = 0u; g < nsg; g++) {
      let wgt = exp(Xm[g * HB + i] - mx);
      sum += Xs[(g * HB + i) * D4 + d4] * wgt;
      ls += Xl[g * HB + i] * wgt;
    }
    store_head(wk.row0 + i, wk.c, d4, sum, mx, ls);
  }
}
