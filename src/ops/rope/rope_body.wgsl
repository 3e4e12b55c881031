// The rotary position embedding body shared by et_vk.apply_rotary_emb (rope.wgsl: token s at input_pos + s) and
// wgrt.rope_rows (rope_rows.wgsl: row s at pos[s]); they differ only in where a token's position comes from, the
// including kernel's table_row(s) hook. One invocation per rotated pair; invocations [0, nq) rotate q pairs,
// [nq, nq + nk) k pairs. x: [B, S, H, D] row-major (rows: B = 1, S = R); tables cos/sin: [C_max, D/2].
// HF false (Meta / llama2.c interleaved): pair (x[2i], x[2i+1]); true (Hugging Face rotate-half): (x[i], x[i+D/2]).
//   out_a = a*cos - b*sin;  out_b = b*cos + a*sin.
// The includer declares the bindings xq, xk, fcos, fsin (read), xq_out, xk_out (read_write), a uniform p of type
// Params, and fn table_row(s : u32) -> u32 for token s = b*S + s' (a row >= c_max writes zeros: the host
// refuses such positions first).
#include "ops/common/index.wgsl"

override HF : bool = false;

struct Params {
  nq : u32,     // q pairs: B*S*Hq*D/2
  nk : u32,     // k pairs: B*S*Hkv*D/2
  seq : u32,    // S
  half : u32,   // D/2
  hq : u32,
  hkv : u32,
  pos : u32,    // input_pos (rope.wgsl)
  c_max : u32,  // table rows
}

// Element indices of pair j of the head vector starting at `base`.
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
  let head_vec = k / p.half;          // (b*S + s)*H + h
  let row = table_row(head_vec / heads);
  let ix = pair_index(head_vec * 2u * p.half, j);
  var a = 0.0;
  var b = 0.0;
  if (row < p.c_max) {
    let c = fcos[row * p.half + j];
    let sn = fsin[row * p.half + j];
    var xa = 0.0;
    var xb = 0.0;
    if (is_q) {
      xa = xq[ix.x];
      xb = xq[ix.y];
    } else {
      xa = xk[ix.x];
      xb = xk[ix.y];
    }
    a = xa * c - xb * sn;
    b = xb * c + xa * sn;
  }
  if (is_q) {
    xq_out[ix.x] = a;
    xq_out[ix.y] = b;
  } else {
    xk_out[ix.x] = a;
    xk_out[ix.y] = b;
  }
}
