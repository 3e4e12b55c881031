// The q/k/v linear of a decoder layer with RoPE and the KV-cache write as its epilogue (wgrt.linear_ggml_rope_qkv,
// linear_ggml.cpp, its GEMV routes): the layout-aware block GEMV of gemv_kq_body.wgsl over the stacked weight
// [Wq; Wk; Wv] (Hq query heads, then Hkv key heads, then Hkv value heads, D = 2 RHALF rows each; one type or a
// two-type stack), the fused RMSNorm (NORM) and int8 x (XQ) as gemv_kq.wgsl, and then, per row m of x (token m,
// position r.pos + m), what wgrt.rope_qkv_cache (ops/rope/rope_qkv.wgsl) does with the projection:
//   q_out[m, h]             = rope(q head h)   (ROTATE false: as projected)
//   k_cache[r.pos + m, h]   = rope(k head h)
//   v_cache[r.pos + m, h]   = v head h
// with out_a = a cos - b sin, out_b = b cos + a sin over the pairs (x[i], x[i + D/2]) (EPI 4, Hugging Face
// rotate-half; gemv_fuse_norm.wgsl's row map puts both in one workgroup) or (x[2i], x[2i + 1]) (EPI 5, Meta
// interleaved), cos and sin of pair j from row r.pos + m of cs ([C_max, D]: cos in 0 .. D/2, sin in D/2 .. D).
// Replaces a GEMV over [Wq; Wk; Wv] and a rope_qkv dispatch. No bias. The host guarantees r.pos + M <= the cache
// rows and the table rows, and N = (Hq + 2 Hkv) D a whole number of workgroups. Storage bindings: 10 (the WebGPU limit this engine asks lavapipe for).
#include "ops/linear/gemv_kq_body.wgsl"

struct RopeParams {
  pos : u32,    // input_pos
  hq : u32,
  hkv : u32,
  c_max : u32,  // cache rows
}

@group(0) @binding(2) var<storage, read> cs : array<f32>;  // [C_max, D]: cos | sin of each position
@group(0) @binding(3) var<storage, read_write> q_out : array<f32>;    // [M, Hq, D]
@group(0) @binding(6) var<storage, read_write> k_cache : array<f32>;  // [C_max, Hkv, D]
@group(0) @binding(10) var<storage, read_write> v_cache : array<f32>; // [C_max, Hkv, D]
@group(0) @binding(11) var<uniform> rp : RopeParams;

override ROTATE : bool = true;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  kq_partials(wg, wid.z, lid);
  let m0 = wid.z * MB;
  let mn = min(MB, p.M - m0);
  let rows = TR * RPT;
  // Row sums to part[m * rows + slot].
  kq_row_sums(lid);
  // Invocation (m, pair) < (mn, rows / 2) stores one pair: slots (pair, pair + rows / 2) (EPI 4) or (2 pair,
  // 2 pair + 1) (EPI 5).
  let half = rows / 2u;
  let D = 2u * RHALF;
  if (lid >= mn * half) {
    return;
  }
  let m = lid / half;
  let j = lid % half;
  let sa = select(2u * j, j, EPI == 4u);
  let sb = select(2u * j + 1u, j + half, EPI == 4u);
  let row = gemv_row(wg, sa);  // element ia of head `head` of the stack; its partner is element ib
  let head = row / D;
  let ia = row % D;
  let ib = select(ia + 1u, ia + RHALF, EPI == 4u);
  let jt = select(ia / 2u, ia, EPI == 4u);  // the pair's table column
  var a = part[m * rows + sa];
  var b = part[m * rows + sb];
  let pos = rp.pos + m0 + m;
  if (ROTATE && head < rp.hq + rp.hkv) {
    let c = cs[pos * D + jt];
    let sn = cs[pos * D + RHALF + jt];
    let ra = a * c - b * sn;
    b = b * c + a * sn;
    a = ra;
  }
  if (head < rp.hq) {
    let dst = ((m0 + m) * rp.hq + head) * D;
    q_out[dst + ia] = a;
    q_out[dst + ib] = b;
    return;
  }
  let kv = (head - rp.hq) % rp.hkv;
  let dst = (pos * rp.hkv + kv) * D;
  if (head < rp.hq + rp.hkv) {
    k_cache[dst + ia] = a;
    k_cache[dst + ib] = b;
  } else {
    v_cache[dst + ia] = a;
    v_cache[dst + ib] = b;
  }
}
