// llama.sdpa_with_kv_cache, decode route (S == 1, D a multiple of 4): split-KV flash decoding with the G query
// heads of a kv head in one workgroup, so every K/V row is read once per split (the body, its tiles and its
// partials layout: sdpa_decode_body.wgsl).
//
// Work split. For batch b and kv head hk, the query heads hk*G + blk*HB + i (i < HB, G = Hq/Hkv) form block blk;
// a workgroup takes one block and one key range (split c of nsplit):
//   w = ((b*Hkv + hk)*blocks + blk)*nsplit + c;  keys [c*chunk, min((c+1)*chunk, ctx)), ctx = input_pos + 1.
// nsplit == 1 writes out = acc / l; nsplit > 1 writes the split's (m, l) and unnormalized acc to partials and
// `combine` (one workgroup per query row) combines them. Partials: row stride nsplit, ml_base = rows*nsplit*D4.
// Rows: row = b*Hq + h (S == 1).
// Layouts (row-major): q, out [B, 1, Hq, D]; k_cache, v_cache [B, C_max, Hkv, D].
// Overrides: HB query heads per block, 1..8 (the host picks min(G, 8)); D4 = D / 4 (p.d4 serves `combine`).
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k_cache : array<KvVec4>;
@group(0) @binding(2) var<storage, read> v_cache : array<KvVec4>;
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

#include "ops/attention/sdpa_decode_body.wgsl"

fn store_head(row : u32, c : u32, d4 : u32, sum : vec4<f32>, m : f32, l : f32) {
  if (p.nsplit == 1u) {
    out[row * D4 + d4] = sum / l;
  } else {
    store_split(row, p.nsplit, c, p.batches * p.hq * p.nsplit * D4, d4, sum, m, l);
  }
}

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
  let h0 = hk * (p.hq / p.hkv) + blk * HB;  // first query head of the block
  let t_begin = c * p.chunk;
  decode_block(b * p.hq + h0, min(HB, p.hq / p.hkv - blk * HB), (b * p.c_max * p.hkv + hk) * D4, p.hkv * D4, t_begin,
               min(t_begin + p.chunk, p.ctx), p.scale, c, lid);
}

// One workgroup per query row r: the nsplit partials of the row combined (combine_splits).
@compute @workgroup_size(64)
fn combine(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.batches * p.hq) {
    return;
  }
  combine_splits(r, p.nsplit, p.nsplit, p.batches * p.hq * p.nsplit * p.d4, p.d4, lid);
}
