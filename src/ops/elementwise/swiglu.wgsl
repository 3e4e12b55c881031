// SwiGLU gate: out[m, i] = silu(x[m, i]) * x[m, H + i] for x [.., 2H] (gate | up, as one fused gate+up linear
// writes them) and out [.., H]; with GELU, GeGLU: gelu_tanh(x[m, i]) * x[m, H + i]. One invocation per output
// element; grid 1-D, folded.
#include "ops/common/index.wgsl"

override GELU : bool = false;

struct Params {
  n : u32,  // output elements
  h : u32,  // H
  _a : u32,
  _b : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let m = i / p.h;
  let c = i % p.h;
  let g = x[m * 2u * p.h + c];
  let u = x[m * 2u * p.h + p.h + c];
  if (GELU) {
    // 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))), as ops/elementwise/unary/gelu_tanh.wgsl.
    let t = 0.7978845608028654 * (g + 0.044715 * g * g * g);
    out[i] = 0.5 * g * (1.0 + tanh(clamp(t, -15.0, 15.0))) * u;
    return;
  }
  // silu(g) = g * sigmoid(g), with exp of a non-positive argument only.
  let e = exp(-abs(g));
  let s = select(e / (1.0 + e), 1.0 / (1.0 + e), g >= 0.0);
  out[i] = g * s * u;
}
