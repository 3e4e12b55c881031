// Shared by the KV-cache write kernels: value [B, S, H, D] element i goes to cache [B, C_max, H, D] at row pos + s.
struct Params {
  n : u32,        // B*S*H*D
  row : u32,      // H*D (elements per token)
  seq : u32,      // S
  c_max : u32,
  pos : u32,
  _a : u32,
  _b : u32,
  _c : u32,
}

fn cache_index(i : u32, p : Params) -> u32 {
  let e = i % p.row;
  let tok = i / p.row;  // b*S + s
  let s = tok % p.seq;
  let b = tok / p.seq;
  return (b * p.c_max + p.pos + s) * p.row + e;
}
