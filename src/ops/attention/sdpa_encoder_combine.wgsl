// et_vk.sdpa route 1, dispatch 2 of 2: merges the split-K partials of each query row r:
//   M = max_c m_c;  L = sum_c l_c exp(m_c - M);  out[r, d] = sum_c o_c[d] exp(m_c - M) / L   (0 when L == 0:
//   a fully masked row). out is [rows, Dv] (= [B, H, Sq, Dv] contiguous). 64-wide workgroups, one per row,
//   folded grid.
#include "ops/common/index.wgsl"
#include "ops/attention/sdpa_encoder_common.wgsl"

struct Params {
  rows : u32, Dv : u32, nsplit : u32, _p0 : u32,
}

@group(0) @binding(0) var<storage, read> part : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let r = linear_workgroup(wid, nwg);
  if (r >= p.rows) {
    return;
  }
  let stride = p.Dv + 2u;
  let base = r * p.nsplit * stride;
  var M = LOWEST;
  for (var c = 0u; c < p.nsplit; c++) {
    M = max(M, part[base + c * stride]);
  }
  var L = 0.0;
  for (var c = 0u; c < p.nsplit; c++) {
    let l = part[base + c * stride + 1u];
    if (l > 0.0) {
      L += l * exp(part[base + c * stride] - M);
    }
  }
  for (var d = lid; d < p.Dv; d += 64u) {
    var o = 0.0;
    for (var c = 0u; c < p.nsplit; c++) {
      if (part[base + c * stride + 1u] > 0.0) {
        o += part[base + c * stride + 2u + d] * exp(part[base + c * stride] - M);
      }
    }
    out[r * p.Dv + d] = select(0.0, o / L, L > 0.0);
  }
}
