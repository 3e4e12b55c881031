// The register-tiled GEMM kernel body for CPU adapters (Mesa lavapipe / llvmpipe): the same operation,
// parameters and bindings as the tiled body (ops/linear/gemm_tiled_body.wgsl, GemmParams in gemm.h):
//   C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n), f32 accumulation.
//
// Why a second kernel: a CPU driver runs 8 (256-bit SIMD) invocations in lock step, one per vector lane, keeps
// each per-invocation scalar in one vector register, turns every lane-varying load (workgroup memory too) into
// a gather and emulates barriers by switching between invocations. This kernel uses no workgroup memory and no
// barriers. A workgroup owns 4*RQ rows (m) and WG columns (n, one per invocation). Per step of 8 k, lane l of a
// subgroup loads A(row, k0 + l) of every row (one gather per row gives 8 k) and subgroupBroadcast(.., j) hands
// lane j's value to all lanes (a register permute); B(k, n) is the invocation's own column. 4*RQ accumulators
// per invocation (RQ vec4s).
// Requires subgroups of at least 8 invocations (lanes 0..7 are broadcast; Tuning::gemm_cpu_supported).
// Grid: x = ceil(M / (4*RQ)) row blocks (fastest, so consecutive workgroups reuse the same B columns from cache),
// y = ceil(N / WG), z = batch (a batch past the z limit folds into x, gemm_grid). Rows, columns and k past M, N, K are clamped for loads (A values past K are
// zeroed; no divergent branch in the loop) and not written, so any M, N, K works.
// The including file (gemm_cpu.wgsl, ops/conv/conv_gemm_cpu.wgsl) defines the B loader:
//   fn b_begin(n : u32, z : u32)                      once per invocation, for its column n (clamped) of batch z
//   fn load_b8(k0 : u32) -> array<vec4<f32>, 2>       B(z, k0 + j, n) for j < 8 (components 0..3, 4..7), 0 past K;
//                                                     called for k0 = 0, 8, 16, ... in order

enable subgroups;

override RQ : u32 = 4u;   // row quads per workgroup (1..4): 4*RQ rows
override WG : u32 = 64u;  // invocations per workgroup = columns per workgroup
override TILE_M : u32 = 4u * RQ;  // outputs per workgroup (read by the host for the grid, gemm.h)
override TILE_N : u32 = WG;

#include "ops/linear/gemm_params.wgsl"


// Row-quad offsets (clamped to the last row) of rows m..m+3.
fn row_offsets(m : u32, mlast : u32) -> vec4<u32> {
  return min(vec4<u32>(m, m + 1u, m + 2u, m + 3u), vec4<u32>(mlast)) * p.a_sm;
}

// This lane's A values of a row quad at k = k0 + lane (ka = element offset of that k; 0 past K).
fn a_quad(ka : u32, ro : vec4<u32>, live : bool) -> vec4<f32> {
  let v = vec4<f32>(a[ka + ro.x], a[ka + ro.y], a[ka + ro.z], a[ka + ro.w]);
  return select(vec4<f32>(0.0), v, live);
}

// acc += sum_j A(rows, k0 + j) * B(k0 + j, n) for j < 8: A(., k0 + j) is lane j's a_quad value,
// B(k0 + j, n) is component j of (b0, b1).
fn step8(acc : vec4<f32>, av : vec4<f32>, b0 : vec4<f32>, b1 : vec4<f32>) -> vec4<f32> {
  var r = acc;
  r += subgroupBroadcast(av, 0u) * b0.x;
  r += subgroupBroadcast(av, 1u) * b0.y;
  r += subgroupBroadcast(av, 2u) * b0.z;
  r += subgroupBroadcast(av, 3u) * b0.w;
  r += subgroupBroadcast(av, 4u) * b1.x;
  r += subgroupBroadcast(av, 5u) * b1.y;
  r += subgroupBroadcast(av, 6u) * b1.z;
  r += subgroupBroadcast(av, 7u) * b1.w;
  return r;
}

fn store_quad(acc : vec4<f32>, m : u32, n : u32, z : u32) {
  for (var i = 0u; i < 4u; i++) {
    let gm = m + i;
    if (gm < p.M) {
      var v = p.alpha * acc[i];
      if (p.has_bias != 0u) {
        v += p.beta * bias[p.bias_off + z * p.bias_sb + gm * p.bias_sm + n * p.bias_sn];
      }
      c[p.c_off + gemm_batch_offset(z, p.c_sb, p.c_sbo) + gm * p.c_sm + n * p.c_sn] = gemm_epilogue(v);
    }
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32, @builtin(subgroup_invocation_id) lane : u32) {
  // A batch beyond the grid's z limit is folded into x (gemm_grid): x = row block + tiles_m * (z mod fold).
  let tiles_m = (p.M + 4u * RQ - 1u) / (4u * RQ);
  let z = wid.z * (nwg.x / tiles_m) + wid.x / tiles_m;
  if (z >= p.batch) {
    return;
  }
  let m0 = (wid.x % tiles_m) * (4u * RQ);
  let n = wid.y * WG + lid;
  let nc = min(n, p.N - 1u);
  let mlast = p.M - 1u;
  let ro0 = row_offsets(m0, mlast);
  let ro1 = row_offsets(m0 + 4u, mlast);
  let ro2 = row_offsets(m0 + 8u, mlast);
  let ro3 = row_offsets(m0 + 12u, mlast);
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  let a_base = p.a_off + gemm_batch_offset(z, p.a_sb, p.a_sbo);
  let klast = p.K - 1u;
  b_begin(nc, z);
  for (var k0 = 0u; k0 < p.K; k0 += 8u) {
    let kl = k0 + lane;
    let live = kl < p.K;
    let ka = a_base + min(kl, klast) * p.a_sk;
    let bk = load_b8(k0);
    let b0 = bk[0];
    let b1 = bk[1];
    acc0 = step8(acc0, a_quad(ka, ro0, live), b0, b1);
    if (RQ > 1u) { acc1 = step8(acc1, a_quad(ka, ro1, live), b0, b1); }
    if (RQ > 2u) { acc2 = step8(acc2, a_quad(ka, ro2, live), b0, b1); }
    if (RQ > 3u) { acc3 = step8(acc3, a_quad(ka, ro3, live), b0, b1); }
  }
  if (n >= p.N) {
    return;
  }
  store_quad(acc0, m0, n, z);
  if (RQ > 1u) { store_quad(acc1, m0 + 4u, n, z); }
  if (RQ > 2u) { store_quad(acc2, m0 + 8u, n, z); }
  if (RQ > 3u) { store_quad(acc3, m0 + 12u, n, z); }
}
