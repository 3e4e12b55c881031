// Normalisation over contiguous rows of L elements, one workgroup (256 invocations) per row, two passes
// (mean, then the biased variance of x - mean, as PyTorch computes them):
//   y[r, i] = (x[r, i] - mean_r) / sqrt(var_r + eps) * weight[a] + bias[a],   a = ((r % G) * L + i) / inner
// LayerNorm: G = 1, inner = 1 (a = i, the position in the normalized shape).
// GroupNorm: a row is one (n, group) block of cpg * HxW elements; G = groups, inner = HxW (a = channel).
// Weight/bias are applied only when has_w / has_b. Grid: 1-D over rows, folded.
#include "ops/common/index.wgsl"
#include "ops/common/reduce.wgsl"

struct Params {
  rows : u32, L : u32, G : u32, inner : u32,
  eps : f32, has_w : u32, has_b : u32, _pad : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> weight : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : Params;

const WG = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let row = linear_workgroup(wid, nwg);
  if (row >= p.rows) {
    return;
  }
  let base = row * p.L;
  var s = 0.0;
  for (var i = lid; i < p.L; i += WG) {
    s += x[base + i];
  }
  let mean = workgroup_sum(s, lid) / f32(p.L);
  var q = 0.0;
  for (var i = lid; i < p.L; i += WG) {
    let d = x[base + i] - mean;
    q += d * d;
  }
  let rstd = 1.0 / sqrt(workgroup_sum(q, lid) / f32(p.L) + p.eps);
  let a0 = (row % p.G) * p.L;
  for (var i = lid; i < p.L; i += WG) {
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
