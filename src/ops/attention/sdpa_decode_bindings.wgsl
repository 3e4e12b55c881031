// The bindings and Params of llama.sdpa_with_kv_cache's decode kernels (sdpa_decode.wgsl, sdpa_decode_sg.wgsl;
// the host's SdpaDecodeParams in sdpa.cpp). Layouts (row-major): q, out [B, 1, Hq, D] as vec4; k_cache, v_cache
// [B, C_max, Hkv, D] as KvVec4 (the prelude kv_f32.wgsl or kv_f16.wgsl); partials: sdpa_decode_partials.wgsl.
// The includer declares the override D4 (head dim / 4).
#include "ops/attention/sdpa_decode_partials.wgsl"
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

// What workgroup w of the decode grid takes (w = ((b*Hkv + hk)*blocks + blk)*nsplit + c, past the real count when
// live is false): query rows row0 .. row0 + nh - 1 (the HB-head block blk of kv head hk, batch b), whose K/V rows
// start at vec4 kv0 with stride ks (vec4), over keys [t_begin, t_end) (split c).
struct DecodeWork {
  live : bool,
  c : u32,
  row0 : u32,
  nh : u32,
  kv0 : u32,
  ks : u32,
  t_begin : u32,
  t_end : u32,
}

fn decode_work(w : u32, hb : u32, d4n : u32) -> DecodeWork {
  var o : DecodeWork;
  o.live = w < p.batches * p.hkv * p.blocks * p.nsplit;
  o.c = w % p.nsplit;
  let blk = (w / p.nsplit) % p.blocks;
  let bh = w / (p.nsplit * p.blocks);
  let hk = bh % p.hkv;
  let b = bh / p.hkv;
  o.row0 = b * p.hq + hk * (p.hq / p.hkv) + blk * hb;
  o.nh = min(hb, p.hq / p.hkv - min(blk * hb, p.hq / p.hkv));
  o.kv0 = (b * p.c_max * p.hkv + hk) * d4n;
  o.ks = p.hkv * d4n;
  o.t_begin = o.c * p.chunk;
  o.t_end = min(o.t_begin + p.chunk, p.ctx);
  return o;
}

// Query row `row`'s result for vec4 dims d4 from split c (unnormalized sum, max m, sum l): out = sum / l when the
// keys are not split, else the split's partial (sdpa_decode_partials.wgsl) for the combine dispatch.
fn store_head(row : u32, c : u32, d4 : u32, sum : vec4<f32>, m : f32, l : f32) {
  if (p.nsplit == 1u) {
    out[row * D4 + d4] = sum / l;
  } else {
    store_split(row, p.nsplit, c, p.batches * p.hq * p.nsplit * D4, d4, sum, m, l);
  }
}
