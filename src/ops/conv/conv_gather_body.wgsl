// The body of the one-invocation-per-output convolution kernels (conv_direct.wgsl, conv_transpose.wgsl):
// bindings, 64-wide workgroups over a folded 1-D grid (p.total = number of outputs, NCHW order), bias and the
// fused epilogue (conv_epilogue.wgsl), the geometry constants (conv_geometry.wgsl). The including kernel defines
// the sum over the inputs that reach output (n, o, oy, ox):
//   fn conv_gather(n : u32, o : u32, oy : u32, ox : u32) -> f32
#include "ops/common/index.wgsl"
#include "ops/conv/conv_params.wgsl"
#include "ops/conv/conv_geometry.wgsl"
#include "ops/conv/conv_epilogue.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> w : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : ConvParams;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let idx = linear_workgroup(wid, nwg) * 64u + lid;
  if (idx >= p.total) {
    return;
  }
  let ox = idx % p.OW;
  let oy = (idx / p.OW) % p.OH;
  let o = (idx / (p.OW * p.OH)) % p.O;
  let n = idx / (p.OW * p.OH * p.O);
  var acc = conv_gather(n, o, oy, ox);
  if (p.has_bias != 0u) {
    acc += bias[o];
  }
  out[idx] = gemm_epilogue(acc);
}
