// wgrt.rope_qkv_cache: the rows of a stacked q/k/v projection [B, S, (Hq + 2 Hkv) * D] (one GEMV over the stacked
// weight [Wq; Wk; Wv]) split into heads in one dispatch: the Hq query heads RoPE-rotated into q_out [B, S, Hq, D],
// the Hkv key heads rotated and the Hkv value heads copied straight into the KV caches [B, C_max, Hkv, D] at row
// p.pos + s (replaces the RoPE dispatch and the SDPA's cache write). One invocation per pair of a head vector:
// (Hq + 2 Hkv) * D/2 per token. Pairs as rope_body.wgsl: HF false (Meta / llama2.c interleaved) (x[2j], x[2j+1]),
// true (Hugging Face rotate-half) (x[j], x[j + D/2]); out_a = a cos - b sin, out_b = b cos + a sin, with
// cos/sin from table row p.pos + s (ROTATE false: no rotation, NoPE layers). p.vsep 1: the projection holds only
// q and k ([B, S, (Hq + Hkv) * D]; Wv is stored otherwise) and v comes from vin [B, S, Hkv, D]. The host
// guarantees pos + S <= C_max.
#include "ops/common/index.wgsl"

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
@group(0) @binding(5) var<storage, read_write> k_cache : array<f32>;
@group(0) @binding(6) var<storage, read_write> v_cache : array<f32>;
@group(0) @binding(7) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.pairs) {
    return;
  }
  let heads = p.hq + 2u * p.hkv;
  let j = i % p.half;
  let hv = i / p.half;  // token * heads + head
  let head = hv % heads;
  let tok = hv / heads;  // b * S + s
  var off = vec2<u32>(2u * j, 2u * j + 1u);
  if (HF) {
    off = vec2<u32>(j, j + p.half);
  }
  let s = tok % p.seq;
  let kv = (head - min(head, p.hq)) % p.hkv;
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
    let c = fcos[row];
    let sn = fsin[row];
    let ra = a * c - b * sn;
    b = b * c + a * sn;
    a = ra;
  }
  if (head < p.hq) {
    let dst = (tok * p.hq + head) * 2u * p.half;
    q_out[dst + off.x] = a;
    q_out[dst + off.y] = b;
    return;
  }
  let dst = (((tok / p.seq) * p.c_max + p.pos + s) * p.hkv + kv) * 2u * p.half;
  if (head < p.hq + p.hkv) {
    k_cache[dst + off.x] = a;
    k_cache[dst + off.y] = b;
  } else {
    v_cache[dst + off.x] = a;
    v_cache[dst + off.y] = b;
  }
}
