// llama.sdpa_with_kv_cache, legacy route (and wgrt.sdpa_with_kv_cache_swa): one workgroup per query row r
// (B*S*Hq rows), scores in scratch; the body is sdpa_common.wgsl's attend_row.
// Layouts (row-major): q, out [B, S, Hq, D]; k_cache, v_cache [B, C_max, Hkv, D].
// Query row r = (b*S + s)*Hq + h is at position pos + s and reads kv head h / (Hq/Hkv) (GQA). With the causal
// mask it sees keys t <= pos + s, otherwise all t < pos + S; a sliding window drops keys t <= pos + s - window.
// The K/V rows must already hold this call's keys (the cache-write dispatches run first).
#include "ops/common/index.wgsl"

struct Params {
  rows : u32,      // B*S*Hq
  seq : u32,       // S
  hq : u32,
  hkv : u32,
  d : u32,         // head dim (<= 256)
  pos : u32,       // input_pos
  c_max : u32,
  causal : u32,
  scale : f32,
  chunk : u32,     // unused here (the flash kernels' split)
  nchunks : u32,   // unused here
  window : u32,    // sliding window: query at position P sees keys t > P - window; 0: all
  softcap : f32,   // scores -> softcap * tanh(score / softcap); 0: none
  _pad0 : u32,
  _pad1 : u32,
  _pad2 : u32,
}

@group(0) @binding(0) var<storage, read> q : array<f32>;
@group(0) @binding(1) var<storage, read> k_cache : array<KvWord>;  // the prelude kv_f32.wgsl or kv_f16.wgsl
@group(0) @binding(2) var<storage, read> v_cache : array<KvWord>;
@group(0) @binding(3) var<storage, read_write> scores : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

#include "ops/attention/sdpa_common.wgsl"

fn row_batch(r : u32) -> u32 { return r / (p.seq * p.hq); }
fn row_token(r : u32) -> u32 { return (r / p.hq) % p.seq; }
fn row_kv_head(r : u32) -> u32 { return (r % p.hq) / (p.hq / p.hkv); }

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.rows) {
    return;  // uniform per workgroup
  }
  let qpos = p.pos + row_token(r);
  let n = select(p.pos + p.seq, qpos + 1u, p.causal != 0u);
  let kb = (row_batch(r) * p.c_max * p.hkv + row_kv_head(r)) * p.d;
  attend_row(r, kb, first_key(qpos), n, lid);
}
