// Transposed convolution whose kernel equals its stride (kh == sh, kw == sw), with no padding, dilation 1 and no
// output_padding: upsampling without overlap, so output pixel (iy*sh + ry, ix*sw + rx) gets exactly one tap
// (ry, rx) of one input pixel (iy, ix):
//   out[n, o, iy*sh + ry, ix*sw + rx] = bias[o] + sum_{c < cpg} W[g*cpg + c, ol, ry, rx] * x[n, g*cpg + c, iy, ix],
//   o = g * opg + ol, weight [C, O/groups, kh, kw] (conv_transpose.wgsl has the general case).
// One invocation per (image, group, block of OB output channels, input pixel), 64-wide workgroups over a folded
// 1-D grid (p.total = N * groups * ceil(opg / OB) * H * W, pixels fastest): per input channel it loads its x
// value once (consecutive invocations: consecutive pixels) and the block's OB * kh*kw weights (the same for
// every invocation of a workgroup), instead of one gather of x and of W per output and channel. Needs
// OB * kh * kw <= 16 (the accumulators; conv.cpp picks OB). Bias and the fused epilogue as conv_gather_body.wgsl.
#include "ops/common/index.wgsl"
#include "ops/conv/conv_params.wgsl"
#include "ops/conv/conv_geometry.wgsl"
#include "ops/conv/conv_epilogue.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> w : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : ConvParams;

override OB : u32 = 1u;  // output channels per invocation
override TAPS : u32 = CONV_KH * CONV_KW;
override ACC : u32 = OB * TAPS;  // accumulators used (<= 16)

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let idx = linear_workgroup(wid, nwg) * 64u + lid;
  if (idx >= p.total) {
    return;
  }
  let hw = p.H * p.W;
  let pix = idx % hw;
  let bpg = (p.opg + OB - 1u) / OB;  // channel blocks per group
  let blk = (idx / hw) % (p.groups * bpg);
  let n = idx / (hw * p.groups * bpg);
  let g = blk / bpg;
  let ol0 = (blk % bpg) * OB;
  var acc : array<f32, 16>;
  // W[c, ol, t] = w[(c * opg + ol) * TAPS + t]: the block's weights of one channel are ACC consecutive values.
  let wstep = p.opg * TAPS;
  let wlast = p.C * wstep - 1u;  // blocks past opg read clamped weights; their outputs are not written
  var xi = (n * p.C + g * p.cpg) * hw + pix;
  var wi = g * p.cpg * wstep + ol0 * TAPS;
  for (var c = 0u; c < p.cpg; c++) {
    let xv = x[xi];
    for (var j = 0u; j < ACC; j++) {
      acc[j] += w[min(wi + j, wlast)] * xv;
    }
    xi += hw;
    wi += wstep;
  }
  let iy = pix / p.W;
  let ix = pix % p.W;
  for (var j = 0u; j < ACC; j++) {
    let ol = ol0 + j / TAPS;
    if (ol < p.opg) {
      let o = g * p.opg + ol;
      let t = j % TAPS;
      var v = acc[j];
      if (p.has_bias != 0u) {
        v += bias[o];
      }
      out[((n * p.O + o) * p.OH + iy * CONV_SH + t / CONV_KW) * p.OW + ix * CONV_SW + t % CONV_KW] = gemm_epilogue(v);
    }
  }
}
