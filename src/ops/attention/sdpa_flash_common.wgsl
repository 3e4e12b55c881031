// Shared declarations of the flash-attention kernels of llama.sdpa_with_kv_cache (sdpa_flash.wgsl,
// sdpa_flash_prefill.wgsl): their Params (sdpa.cpp's SdpaParams, one struct for both) and the row mapping of a
// GQA group. The including kernel declares `p : Params` as its uniform.
// Rows of (b, kv head hk): j = s*G + g (token s, query head hk*G + g, G = Hq/Hkv).
struct Params {
  rows : u32,     // B*S*Hq (query rows)
  seq : u32,      // S
  hq : u32,
  hkv : u32,
  d : u32,        // head dim
  pos : u32,      // input_pos
  c_max : u32,
  causal : u32,
  scale : f32,
  chunk : u32,    // keys per split (sdpa_flash.wgsl decode)
  nsplit : u32,   // splits per block (1: no combine)
  blocks : u32,   // row blocks per (b, kv head): ceil(S*G / rows per block)
}

fn group_size() -> u32 { return p.hq / p.hkv; }

// Keys visible to block row j (causal: those of its token; rows past S*G see no fewer than the last real row).
fn visible(j : u32) -> u32 {
  if (p.causal != 0u) {
    return p.pos + j / group_size() + 1u;
  }
  return p.pos + p.seq;
}

// The query row index (b*S + s)*Hq + h of block row j of (b, hk).
fn query_row(b : u32, hk : u32, j : u32) -> u32 {
  let g = group_size();
  return (b * p.seq + j / g) * p.hq + hk * g + j % g;
}
