// Bindings of the one-invocation-per-output convolution kernels (conv_direct.wgsl, conv_transpose.wgsl).
#include "ops/conv/conv_params.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> w : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : ConvParams;
