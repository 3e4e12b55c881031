// wgrt.rope_rows: rotary position embedding of q and k rows, each at its own position (a batch of rows from
// several sequences). One invocation per rotated pair. x: [1, R, H, D] row-major; tables cos/sin [C_max, D/2];
// row s uses table row pos[s] (a position outside [0, C_max) leaves zeros: the host refuses it first).
// HF false (Meta / llama2.c interleaved): pair (x[2i], x[2i+1]); true (Hugging Face rotate-half): (x[i], x[i+D/2]).
//   out_a = a*cos - b*sin;  out_b = b*cos + a*sin.
// Invocations [0, nq) rotate q pairs, [nq, nq + nk) k pairs.
#include "ops/common/index.wgsl"

override HF : bool = false;

struct Params {
  nq : u32,     // q pairs: R*Hq*D/2
  nk : u32,     // k pairs: R*Hkv*D/2
  half : u32,   // D/2
  hq : u32,
  hkv : u32,
  c_max : u32,
  _pad0 : u32,
  _pad1 : u32,
}

@group(0) @binding(0) var<storage, read> xq : array<f32>;
@group(0) @binding(1) var<storage, read> xk : array<f32>;
@group(0) @binding(2) var<storage, read> fcos : array<f32>;
@group(0) @binding(3) var<storage, read> fsin : array<f32>;
@group(0) @binding(4) var<storage, read> pos : array<i32>;
@group(0) @binding(5) var<storage, read_write> xq_out : array<f32>;
@group(0) @binding(6) var<storage, read_write> xk_out : array<f32>;
@group(0) @binding(7) var<uniform> p : Params;

fn pair_index(base : u32, j : u32) -> vec2<u32> {
  if (HF) {
    return vec2<u32>(base + j, base + j + p.half);
  }
  return vec2<u32>(base + 2u * j, base + 2u * j + 1u);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.nq + p.nk) {
    return;
  }
  let is_q = i < p.nq;
  let k = select(i - p.nq, i, is_q);
  let heads = select(p.hkv, p.hq, is_q);
  let j = k % p.half;
  let head_vec = k / p.half;          // s*H + h
  let s = head_vec / heads;
  let ps = u32(pos[s]);
  var c = 0.0;
  var sn = 0.0;
  var keep = 0.0;
  if (ps < p.c_max) {
    c = fcos[ps * p.half + j];
    sn = fsin[ps * p.half + j];
    keep = 1.0;
  }
  let ix = pair_index(head_vec * 2u * p.half, j);
  if (is_q) {
    let a = xq[ix.x] * keep;
    let b = xq[ix.y] * keep;
    xq_out[ix.x] = a * c - b * sn;
    xq_out[ix.y] = b * c + a * sn;
  } else {
    let a = xk[ix.x] * keep;
    let b = xk[ix.y] * keep;
    xk_out[ix.x] = a * c - b * sn;
    xk_out[ix.y] = b * c + a * sn;
  }
}
