// Normalisation over contiguous rows of L elements, one workgroup (256 invocations) per row, two passes
// (mean, then the biased variance of x - mean, as PyTorch computes them):
//   y[r, i] = (x[r, i] - mean_r) / sqrt(var_r + eps) * weight[a] + bias[a],   a = ((r % G) * L + i) / inner
// LayerNorm: G = 1, inner = 1 (a = i, the position in the normalized shape).
// GroupNorm: a row is one (n, group) block of cpg * HxW elements; G = groups, inner = HxW (a = channel).
// Weight/bias are applied only when has_w / has_b. Grid: 1-D over rows, folded.
#include "ops/common/index.wgsl"

struct Params {
  rows : u32, L : u32, G : u32, inner : u32,
  eps : f32, has_w : u32, has_b : u32, _pad : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> weight : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : Params;

var<workgroup> red : array<f32, 256>;

fn reduce_sum(lid : u32, v : f32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s >>= 1u) {
    if (lid < s) {
      red[lid] += red[lid + s];
    }
    workgroupBarrier();
  }
  let total = red[0];
  workgroupBarrier();
  return total;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  let base = row * p.L;
  var s = 0.0;
  for (var i = lid; i < p.L; i += 256u) {
    s += x[base + i];
  }
  let mean = reduce_sum(lid, s) / f32(p.L);
  var q = 0.0;
  for (var i = lid; i < p.L; i += 256u) {
    let d = x[base + i] - mean;
    q += d * d;
  }
  let rstd = 1.0 / sqrt(reduce_sum(lid, q) / f32(p.L) + p.eps);
  let a0 = (row % p.G) * p.L;
  for (var i = lid; i < p.L; i += 256u) {
    var y = (x[base + i] - mean) * rstd;
    let a = (a0 + i) / p.inner;
    if (p.has_w != 0u) {
      y *= weight[a];
    }
    if (p.has_b != 0u) {
      y += bias[a];
    }
    out[base + i] = y;
  }
}
