// Split-K GEMM, second pass (aten.mm / addmm with few output tiles, ops/matmul/matmul.cpp): the first pass ran
// the GEMM kernel (gemm.wgsl or gemm_big.wgsl) as a batch of S = p.K partial products over consecutive K / S
// slices of k, written without alpha, bias or epilogue to part[s * M * N + m * N + n]; this pass sums them in
// order s = 0 .. S - 1 and stores C(m, n) = gemm_epilogue(alpha * sum + beta * bias(m, n)) through gemm_store
// (the final GemmParams: M, N, c / bias offsets and strides, alpha, beta, has_bias; K holds S, batch 1).
// One invocation per output, 256 per workgroup; grid 1-D over ceil(M * N / 256) workgroups (folded to 2-D).
#include "ops/linear/gemm_common.wgsl"
#include "ops/linear/gemm_epilogue_none.wgsl"
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> part : array<f32>;
@group(0) @binding(1) var<storage, read> bias : array<f32>;
@group(0) @binding(2) var<storage, read_write> c : array<f32>;
@group(0) @binding(3) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = linear_workgroup(wid, nwg) * 256u + lid;
  let mn = p.M * p.N;
  if (i >= mn) {
    return;
  }
  var s = 0.0;
  for (var z = 0u; z < p.K; z++) {
    s += part[z * mn + i];
  }
  gemm_store(i / p.N, i % p.N, s, p.c_off, p.bias_off);
}
