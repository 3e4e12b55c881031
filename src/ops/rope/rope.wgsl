// et_vk.apply_rotary_emb(_hf): rotary position embedding of q and k in one dispatch (rope_body.wgsl); token s
// of the [B, S, H, D] inputs is at position input_pos + s (table row p.pos + s).
@group(0) @binding(0) var<storage, read> xq : array<f32>;
@group(0) @binding(1) var<storage, read> xk : array<f32>;
@group(0) @binding(2) var<storage, read> fcos : array<f32>;
@group(0) @binding(3) var<storage, read> fsin : array<f32>;
@group(0) @binding(4) var<storage, read_write> xq_out : array<f32>;
@group(0) @binding(5) var<storage, read_write> xk_out : array<f32>;
@group(0) @binding(6) var<uniform> p : Params;

#include "ops/rope/rope_body.wgsl"

fn table_row(s : u32) -> u32 { return p.pos + s % p.seq; }
