// Shared declarations of wgrt.sdpa_batched's kernels (sdpa_batched_write.wgsl, sdpa_batched.wgsl,
// sdpa_batched_decode.wgsl).
// Layouts (row-major): q, out [1, R, Hq, D]; k, v [1, R, Hkv, D]; k_cache, v_cache [N, C_max, Hkv, D] (one
// region of C_max positions per sequence slot); slots, pos i32 [R]: row r belongs to slot slots[r] at position
// pos[r]. A row whose slot is outside [0, N) or whose position is outside [0, C_max) is skipped (no cache
// write, output zeros); the host refuses such rows before they get here.
struct Params {
  rows : u32,      // R
  hq : u32,
  hkv : u32,
  d : u32,         // head dim (<= 256)
  c_max : u32,
  nslots : u32,    // N
  scale : f32,
  window : u32,    // sliding window: row r sees keys t > pos[r] - window; 0: all (the _swa variant)
  softcap : f32,   // scores -> softcap * tanh(score / softcap); 0: none (the _swa variant)
  chunk : u32,     // the decode route (sdpa_batched_decode.wgsl): keys per split
  nsplit : u32,    // ... splits of the longest row (the partials' row stride; a row uses its live ones)
  blocks : u32,    // ... head blocks per kv head: ceil(G / HB)
}

fn row_valid(r : u32) -> bool {
  return u32(slots[r]) < p.nslots && u32(pos[r]) < p.c_max;
}
