// out[i] = f(x[i]), f32, one invocation per element. OP selects f:
// 0 silu, 1 gelu (erf), 2 gelu (tanh), 3 sigmoid, 4 relu, 5 tanh, 6 leaky_relu(p0 = slope),
// 7 hardswish, 8 clamp(p0 = min, p1 = max), 9 neg.
#include "ops/common/index.wgsl"

override OP : u32 = 0u;

struct Params {
  n : u32,
  p0 : f32,
  p1 : f32,
  _pad : u32,
}

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> p : Params;

// erf with |error| < 1.5e-7 (Abramowitz & Stegun 7.1.26); WGSL has no erf builtin.
fn erf_approx(v : f32) -> f32 {
  let s = sign(v);
  let a = abs(v);
  let t = 1.0 / (1.0 + 0.3275911 * a);
  let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-a * a);
  return s * y;
}

fn sigmoid(v : f32) -> f32 {
  // Stable for large |v|: exp of a non-positive number only.
  if (v >= 0.0) {
    return 1.0 / (1.0 + exp(-v));
  }
  let e = exp(v);
  return e / (1.0 + e);
}

fn f(v : f32) -> f32 {
  switch OP {
    case 0u: { return v * sigmoid(v); }
    case 1u: { return 0.5 * v * (1.0 + erf_approx(v * 0.7071067811865476)); }
    case 2u: {
      let u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
      return 0.5 * v * (1.0 + tanh(clamp(u, -15.0, 15.0)));
    }
    case 3u: { return sigmoid(v); }
    case 4u: { return max(v, 0.0); }
    case 5u: { return tanh(clamp(v, -15.0, 15.0)); }
    case 6u: { return select(v * p.p0, v, v >= 0.0); }
    case 7u: { return v * clamp(v + 3.0, 0.0, 6.0) / 6.0; }
    case 8u: { return min(max(v, p.p0), p.p1); }
    default: { return -v; }
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  if (i < p.n) {
    out[i] = f(x[i]);
  }
}
