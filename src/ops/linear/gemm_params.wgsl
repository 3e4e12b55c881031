// Parameters and bindings shared by the GEMM kernel bodies (gemm_tiled_body.wgsl, gemm_cpu_body.wgsl); GemmParams
// in gemm.h. a, b (f32 or q4gsw words as u32), scales (q4), bias, c, params.
#include "ops/linear/q4gsw_scale.wgsl"

struct Params {
  M : u32, N : u32, K : u32, batch : u32,
  a_off : u32, a_sb : u32, a_sm : u32, a_sk : u32,
  b_off : u32, b_sb : u32, b_sk : u32, b_sn : u32,
  c_off : u32, c_sb : u32, c_sm : u32, c_sn : u32,
  bias_off : u32, bias_sb : u32, bias_sm : u32, bias_sn : u32,
  has_bias : u32, group : u32, s_sn : u32, _pad0 : u32,
  alpha : f32, beta : f32, _pad1 : u32, _pad2 : u32,
}

@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> scales : array<u32>;  // q4: q4gsw_scale()
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

// The batch z and the output tile origin (m0, n0) of a workgroup on the grid (ceil(N/tile_n), ceil(M/tile_m) *
// fold, z): a batch beyond the grid's z limit is folded into y (gemm_grid), y = m tile + tiles_m * (z mod fold).
// z >= p.batch: a padding workgroup, which returns.
struct GemmTile {
  z : u32,
  m0 : u32,
  n0 : u32,
}
fn gemm_tile(wid : vec3<u32>, nwg : vec3<u32>, tile_m : u32, tile_n : u32) -> GemmTile {
  let tiles_m = (p.M + tile_m - 1u) / tile_m;
  return GemmTile(wid.z * (nwg.y / tiles_m) + wid.y / tiles_m, (wid.y % tiles_m) * tile_m, wid.x * tile_n);
}

// Writes alpha * v (+ beta * bias) to C(z, gm, gn) (c_base = c_off + z*c_sb, bias_base = bias_off + z*bias_sb).
fn gemm_store(gm : u32, gn : u32, v : f32, c_base : u32, bias_base : u32) {
  var o = p.alpha * v;
  if (p.has_bias != 0u) {
    o += p.beta * bias[bias_base + gm * p.bias_sm + gn * p.bias_sn];
  }
  c[c_base + gm * p.c_sm + gn * p.c_sn] = o;
}
