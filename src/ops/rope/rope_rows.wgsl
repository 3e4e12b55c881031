// wgrt.rope_rows(_hf): rotary position embedding of q and k rows, each at its own position (a batch of rows from
// several sequences; rope_body.wgsl): row s of the [1, R, H, D] inputs uses table row pos[s].
@group(0) @binding(0) var<storage, read> xq : array<f32>;
@group(0) @binding(1) var<storage, read> xk : array<f32>;
@group(0) @binding(2) var<storage, read> fcos : array<f32>;
@group(0) @binding(3) var<storage, read> fsin : array<f32>;
@group(0) @binding(4) var<storage, read> pos : array<i32>;
@group(0) @binding(5) var<storage, read_write> xq_out : array<f32>;
@group(0) @binding(6) var<storage, read_write> xk_out : array<f32>;
@group(0) @binding(7) var<uniform> p : Params;

#include "ops/rope/rope_body.wgsl"

fn table_row(s : u32) -> u32 { return u32(pos[s]); }  // a negative position becomes >= c_max: zeros
