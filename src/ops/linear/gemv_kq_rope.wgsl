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
// Replaces a GEMV over [Wq; Wk; Wv] and a rope_qkv dispatch. With p.has_bias the q/k/v bias (Qwen2's) is added to
// each projection row before RoPE; it rides in the norm weight's binding (nw: the norm weight [K], then from element
// KB = K rounded up to 64 the bias [N]), since the kernel already binds the 10 storage buffers (the WebGPU limit
// this engine asks lavapipe for). The host guarantees r.pos + M <= the cache rows and the table rows, and
// N = (Hq + 2 Hkv) D a whole number of workgroups.
#include "ops/linear/gemv_kq_body.wgsl"
#include "ops/kv_cache/kv_pairs.wgsl"

struct RopeParams {
  pos : u32,    // input_pos
  hq : u32,
  hkv : u32,
  c_max : u32,  // cache rows
}

@group(0) @binding(2) var<storage, read> cs : array<f32>;  // [C_max, D]: cos | sin of each position
@group(0) @binding(3) var<storage, read_write> q_out : array<f32>;    // [M, Hq, D]
@group(0) @binding(6) var<storage, read_write> k_cache : array<KvWord>;  // [C_max, Hkv, D] (prelude kv_f32 / kv_f16.wgsl)
@group(0) @binding(10) var<storage, read_write> v_cache : array<KvWord>; // [C_max, Hkv, D]
@group(0) @binding(11) var<uniform> rp : RopeParams;

override ROTATE : bool = true;

// Element i of the norm-and-bias binding (nw is vec4-typed for the norm).
fn nw_elem(i : u32) -> f32 {
  return nw[i / 4u][i % 4u];
}

@compute @workgroup_size(TK * TR)
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
  // Invocation (m, u) < (mn, rows / 2 / KV_PER_WORD) stores KV_PER_WORD pairs j = u * KV_PER_WORD + g: slots
  // (j, j + rows / 2) (EPI 4) or (2 j, 2 j + 1) (EPI 5). With an f16 cache (two pairs) the slots j, j + 1 of EPI 4
  // are elements ia, ia + 1 of one head (RHALF even), and those of EPI 5 ia .. ia + 3, so each cache word is whole.
  let half = rows / 2u;
  let D = 2u * RHALF;
  let per = half / KV_PER_WORD;
  if (lid >= mn * per) {
    return;
  }
  let m = lid / per;
  let pos = rp.pos + m0 + m;
  var av : array<f32, 2>;
  var bv : array<f32, 2>;
  var ias : array<u32, 2>;
  var head = 0u;
  for (var g = 0u; g < KV_PER_WORD; g++) {
    let j = (lid % per) * KV_PER_WORD + g;
    let sa = select(2u * j, j, EPI == 4u);
    let sb = select(2u * j + 1u, j + half, EPI == 4u);
    let row = gemv_row(wg, sa);  // element ia of head `head` of the stack; its partner is element ib
    head = row / D;
    let ia = row % D;
    let jt = select(ia / 2u, ia, EPI == 4u);  // the pair's table column
    var a = part[m * rows + sa];
    var b = part[m * rows + sb];
    if (p.has_bias != 0u) {  // the bias of rows `row` (slot sa) and gemv_row(wg, sb) (slot sb)
      let kb = (p.K + 63u) / 64u * 64u;
      a += nw_elem(kb + p.n_base + row);
      b += nw_elem(kb + p.n_base + gemv_row(wg, sb));
    }
    if (ROTATE && head < rp.hq + rp.hkv) {
      let ab = rope_rotate(a, b, cs[pos * D + jt], cs[pos * D + RHALF + jt]);
      a = ab.x;
      b = ab.y;
    }
    av[g] = a;
    bv[g] = b;
    ias[g] = ia;
  }
  let pb = select(1u, RHALF, EPI == 4u);  // ib - ia
  if (head < rp.hq) {
    let dst = ((m0 + m) * rp.hq + head) * D;
    for (var g = 0u; g < KV_PER_WORD; g++) {
      q_out[dst + ias[g]] = av[g];
      q_out[dst + ias[g] + pb] = bv[g];
    }
    return;
  }
  let kv = (head - rp.hq) % rp.hkv;
  let kw = kv_pair_words((pos * rp.hkv + kv) * D, ias, pb, EPI == 4u, av, bv);
  if (head < rp.hq + rp.hkv) {
    k_cache[kw.e0 / KV_PER_WORD] = kw.w0;
    k_cache[kw.e1 / KV_PER_WORD] = kw.w1;
  } else {
    v_cache[kw.e0 / KV_PER_WORD] = kw.w0;
    v_cache[kw.e1 / KV_PER_WORD] = kw.w1;
  }
}
