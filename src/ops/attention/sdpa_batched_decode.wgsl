// wgrt.sdpa_batched, decode route (D a multiple of 4, no soft cap or window): each row r attends as a decode
// query of its own sequence (sdpa_decode_body.wgsl: the HB query heads of a kv head in one workgroup, vec4 K/V
// rows, split-KV) over the keys [0, pos[r]] of its slot's cache region. The cache-write dispatch runs first, so
// the rows of one slot in this call (a prefill chunk) see each other, as the scores route does.
// Work split: w = ((r*Hkv + hk)*blocks + blk)*nsplit + c. The host plans chunk from the step's longest row
// (nsplit = ceil(max(pos + 1) / chunk), the partials' row stride); row r's live splits are
// live_r = ceil((pos[r] + 1) / chunk): workgroups with c >= live_r return at once, a row with live_r == 1 writes
// out directly, and `combine` merges only the live_r partials of the others.
// Partials (vec4): acc at [(qr*nsplit + c)*D4 + d4], (m, l, 0, 0) at [R*Hq*nsplit*D4 + qr*nsplit + c], qr = r*Hq + h.
// Layouts: sdpa_batched_common.wgsl. Overrides: HB (1..8, the host picks min(G, 8)), D4 = D / 4.
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k_cache : array<KvVec4>;
@group(0) @binding(2) var<storage, read> v_cache : array<KvVec4>;
@group(0) @binding(3) var<storage, read> slots : array<i32>;
@group(0) @binding(4) var<storage, read> pos : array<i32>;
@group(0) @binding(5) var<storage, read_write> partials : array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> out : array<vec4<f32>>;
@group(0) @binding(7) var<uniform> p : Params;

#include "ops/attention/sdpa_batched_common.wgsl"
#include "ops/attention/sdpa_decode_body.wgsl"

// Row r's live splits: those whose key range starts at or before pos[r].
fn live_splits(r : u32) -> u32 {
  return (u32(pos[r]) + p.chunk) / p.chunk;
}

fn store_head(row : u32, c : u32, d4 : u32, sum : vec4<f32>, m : f32, l : f32) {
  if (live_splits(row / p.hq) == 1u) {
    out[row * D4 + d4] = sum / l;
  } else {
    store_split(row, p.nsplit, c, p.rows * p.hq * p.nsplit * D4, d4, sum, m, l);
  }
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let w = linear_workgroup(wid, nwg);
  if (w >= p.rows * p.hkv * p.blocks * p.nsplit) {
    return;  // uniform per workgroup
  }
  let c = w % p.nsplit;
  let blk = (w / p.nsplit) % p.blocks;
  let rh = w / (p.nsplit * p.blocks);
  let hk = rh % p.hkv;
  let r = rh / p.hkv;
  if (!row_valid(r) || c >= live_splits(r)) {
    return;  // uniform per workgroup (the host refuses invalid rows before they get here)
  }
  let g = p.hq / p.hkv;
  let h0 = hk * g + blk * HB;  // first query head of the block
  let t_begin = c * p.chunk;
  decode_block(r * p.hq + h0, min(HB, g - blk * HB), (u32(slots[r]) * p.c_max * p.hkv + hk) * D4, p.hkv * D4, t_begin,
               min(t_begin + p.chunk, u32(pos[r]) + 1u), p.scale, c, lid);
}

// One workgroup per query row qr = r*Hq + h with live_r > 1: its live partials combined.
@compute @workgroup_size(64)
fn combine(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
           @builtin(local_invocation_index) lid : u32) {
  let qr = linear_workgroup(wid, nwg);
  if (qr >= p.rows * p.hq) {
    return;
  }
  let r = qr / p.hq;
  if (!row_valid(r)) {
    return;
  }
  let live = live_splits(r);
  if (live <= 1u) {
    return;  // main wrote the row
  }
  let d4n = p.d / 4u;
  combine_splits(qr, p.nsplit, live, p.rows * p.hq * p.nsplit * d4n, d4n, lid);
}
