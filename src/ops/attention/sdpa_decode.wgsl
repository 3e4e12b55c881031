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

#include "ops/attention/sdpa_decode_bindings.wgsl"
#include "ops/attention/sdpa_decode_body.wgsl"

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let wk = decode_work(linear_workgroup(wid, nwg), HB, D4);
  if (!wk.live) {
    return;  // uniform per workgroup
  }
  decode_block(wk.row0, wk.nh, wk.kv0, wk.ks, wk.t_begin, wk.t_end, p.scale, wk.c, lid);
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
