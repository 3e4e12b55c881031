// Embedding lookup from weights in a ggml block format (ops/linear/ggml_decode.wgsl, override WTYPE), one
// invocation per output element (256 per workgroup, 1-D grid folded):
//   out[t, d] = W[ids[t]][d] for t < tokens, d < D, W's row v being the p.row_bytes bytes at
//   (v - p.row0) * p.row_bytes of this dispatch's slice of w. A dispatch owns rows [row0, row0 + rows): it
//   writes only tokens whose id falls there; the dispatch with p.zeros = 1 also writes the zero rows of ids
//   outside [0, V) (no out-of-bounds reads).
#include "ops/common/index.wgsl"

struct Params {
  n : u32,  // tokens * D
  D : u32,
  V : u32,
  row0 : u32,
  rows : u32,
  row_bytes : u32,
  zeros : u32,
  _pad : u32,
}

@group(0) @binding(0) var<storage, read> w : array<u32>;
@group(0) @binding(1) var<storage, read> ids : array<i32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@group(0) @binding(3) var<uniform> p : Params;

fn ggml_word(i : u32) -> u32 { return w[i]; }
#include "ops/linear/ggml_decode.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let t = i / p.D;
  let d = i % p.D;
  let id = ids[t];
  if (id < 0 || u32(id) >= p.V) {
    if (p.zeros != 0u) {
      out[i] = 0.0;
    }
    return;
  }
  let v = u32(id);
  if (v < p.row0 || v >= p.row0 + p.rows) {
    return;
  }
  let be = ggml_block_elems();
  out[i] = ggml_value((v - p.row0) * p.row_bytes + (d / be) * ggml_block_bytes(), d % be);
}
