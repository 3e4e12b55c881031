// wgrt.reduce_axis: out[o, i] = reduce_{r < R} x[o, r, i] over one axis of x viewed as [outer, R, inner]
// (row-major), one invocation per output, sequential accumulation in f32. MODE (override):
//   0 sum, 1 mean, 2 max, 3 min, 4 prod, 5 sum of squares, 6 sum of |x|, 7 log(sum(exp(x))) (max-shifted).
// max/min propagate NaN. 64-wide workgroups over a folded 1-D grid.
#include "ops/common/index.wgsl"
#include "ops/common/nan.wgsl"

override MODE : u32 = 0u;

struct Params {
  outer : u32,
  R : u32,
  inner : u32,
  total : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let idx = linear_workgroup(wid, nwg) * 64u + lid;
  if (idx >= p.total) {
    return;
  }
  let o = idx / p.inner;
  let i = idx % p.inner;
  let base = o * p.R * p.inner + i;
  var acc = x[base];
  if (MODE == 5u) {
    acc = acc * acc;
  } else if (MODE == 6u) {
    acc = abs(acc);
  }
  var nan = is_nan(acc);
  var nan_value = acc;
  for (var r = 1u; r < p.R; r++) {
    let v = x[base + r * p.inner];
    if (is_nan(v)) {
      nan = true;
      nan_value = v;
    }
    switch MODE {
      case 2u: { acc = max(acc, v); }
      case 3u: { acc = min(acc, v); }
      case 4u: { acc = acc * v; }
      case 5u: { acc = acc + v * v; }
      case 6u: { acc = acc + abs(v); }
      case 7u: { acc = max(acc, v); }
      default: { acc = acc + v; }
    }
  }
  if (MODE == 7u) {
    let m = acc;
    var s = 0.0;
    for (var r = 0u; r < p.R; r++) {
      s = s + exp(x[base + r * p.inner] - m);
    }
    acc = m + log(s);
  }
  if (MODE == 1u) {
    acc = acc / f32(p.R);
  }
  if ((MODE == 2u || MODE == 3u) && nan) {
    acc = nan_value;
  }
  out[idx] = acc;
}
