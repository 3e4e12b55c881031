// wgrt.rope_qkv_cache: the rows of a stacked q/k/v projection [B, S, (Hq + 2 Hkv) * D] (one GEMV over the stacked
// weight [Wq; Wk; Wv]) split into heads in one dispatch: the Hq query heads RoPE-rotated into q_out [B, S, Hq, D],
// the Hkv key heads rotated and the Hkv value heads copied straight into the KV caches [B, C_max, Hkv, D] at row
// p.pos + s (replaces the RoPE dispatch and the SDPA's cache write). One invocation per KV_PER_WORD pairs of a
// head vector (the prelude kv_f32.wgsl: one pair; kv_f16.wgsl: two, so each cache word is written whole, and the
// host checks D % 4 == 0): (Hq + 2 Hkv) * D/2 / KV_PER_WORD per token. Pairs as rope_body.wgsl: HF false (Meta / llama2.c interleaved) (x[2j], x[2j+1]),
// true (Hugging Face rotate-half) (x[j], x[j + D/2]); out_a = a cos - b sin, out_b = b cos + a sin, with
// cos/sin from table row p.pos + s (ROTATE false: no rotation, NoPE layers). p.vsep 1: the projection holds only
// q and k ([B, S, (Hq + Hkv) * D]; Wv is stored otherwise) and v comes from vin [B, S, Hkv, D]. The host
// guarantees pos + S <= C_max.
#include "ops/common/index.wgsl"
#include "ops/kv_cache/kv_pairs.wgsl"

override HF : bool = false;
override ROTATE : bool = true;

struct Params {
  pairs : u32,  // B * S * (Hq + 2 Hkv) * D/2
  half : u32,   // D/2
  hq : u32,
  hkv : u32,
  seq : u32,    // S
  pos : u32,    // input_pos
  c_max : u32,  // cache rows
  vsep : u32,   // 1: v from vin, qkv holds q and k only
}

@group(0) @binding(0) var<storage, read> qkv : array<f32>;
@group(0) @binding(1) var<storage, read> fcos : array<f32>;
@group(0) @binding(2) var<storage, read> fsin : array<f32>;
@group(0) @binding(3) var<storage, read> vin : array<f32>;
@group(0) @binding(4) var<storage, read_write> q_out : array<f32>;
@group(0) @binding(5) var<storage, read_write> k_cache : array<KvWord>;
@group(0) @binding(6) var<storage, read_write> v_cache : array<KvWord>;
@group(0) @binding(7) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i0 = (linear_workgroup(wid, nwg) * 256u + lid) * KV_PER_WORD;  // the invocation's first pair
  if (i0 >= p.pairs) {
    return;
  }
  let heads = p.hq + 2u * p.hkv;
  let j0 = i0 % p.half;
  let hv = i0 / p.half;  // token * heads + head
  let head = hv % heads;
  let tok = hv / heads;  // b * S + s
  let s = tok % p.seq;
  let kv = (head - min(head, p.hq)) % p.hkv;
  var av : array<f32, 2>;
  var bv : array<f32, 2>;
  var offs : array<vec2<u32>, 2>;
  for (var g = 0u; g < KV_PER_WORD; g++) {
    let j = j0 + g;
    var off = vec2<u32>(2u * j, 2u * j + 1u);
    if (HF) {
      off = vec2<u32>(j, j + p.half);
    }
    var a = 0.0;
    var b = 0.0;
    if (p.vsep != 0u && head >= p.hq + p.hkv) {
      let src = (tok * p.hkv + kv) * 2u * p.half;
      a = vin[src + off.x];
      b = vin[src + off.y];
    } else {
      let src = (tok * (heads - p.vsep * p.hkv) + head) * 2u * p.half;
      a = qkv[src + off.x];
      b = qkv[src + off.y];
    }
    if (ROTATE && head < p.hq + p.hkv) {
      let row = (p.pos + s) * p.half + j;
      let ab = rope_rotate(a, b, fcos[row], fsin[row]);
      a = ab.x;
      b = ab.y;
    }
    av[g] = a;
    bv[g] = b;
    offs[g] = off;
  }
  if (head < p.hq) {
    let dst = (tok * p.hq + head) * 2u * p.half;
    for (var g = 0u; g < KV_PER_WORD; g++) {
      q_out[dst + offs[g].x] = av[g];
      q_out[dst + offs[g].y] = bv[g];
    }
    return;
  }
  let dst = (((tok / p.seq) * p.c_max + p.pos + s) * p.hkv + kv) * 2u * p.half;
  let kw = kv_pair_words(dst, array<u32, 2>(offs[0].x, offs[1].x), offs[0].y - offs[0].x, HF, av, bv);
  if (head < p.hq + p.hkv) {
    k_cache[kw.e0 / KV_PER_WORD] = kw.w0;
    k_cache[kw.e1 / KV_PER_WORD] = kw.w1;
  } else {
    v_cache[kw.e0 / KV_PER_WORD] = kw.w0;
    v_cache[kw.e1 / KV_PER_WORD] = kw.w1;
  }
}
