// Register-tiled GEMM for CPU adapters (Mesa lavapipe / llvmpipe): the same operation, parameters and bindings
// as ops/linear/gemm.wgsl (see GemmParams in gemm.h):
//   C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n), f32 accumulation.
//
// Why a second kernel: a CPU driver runs 8 (256-bit SIMD) invocations in lock step, one per vector lane, keeps
// each per-invocation scalar in one vector register, turns every lane-varying load (workgroup memory too) into
// a gather and emulates barriers by switching between invocations. This kernel uses no workgroup memory and no
// barriers. A workgroup owns 4*RQ rows (m) and WG columns (n, one per invocation). Per step of 8 k, lane l of a
// subgroup loads A(row, k0 + l) of every row (one gather per row gives 8 k) and subgroupBroadcast(.., j) hands
// lane j's value to all lanes (a register permute); B(k, n) is the invocation's own column (one gather per k;
// q4: one word per 8 k, decoded in registers). 4*RQ accumulators per invocation (RQ vec4s).
// Requires subgroups of at least 8 invocations (lanes 0..7 are broadcast; gemm_cpu_supported in gemm.h).
// Grid: x = ceil(M / (4*RQ)) row blocks (fastest, so consecutive workgroups reuse the same B columns from cache),
// y = ceil(N / WG), z = batch. Rows, columns and k past M, N, K are clamped for loads (A and B values past K are
// zeroed; no divergent branch in the loop) and not written, so any M, N, K works.
// B_MODE 0: B(z,k,n) = bitcast<f32>(b[b_off + z*b_sb + k*b_sk + n*b_sn]).
// B_MODE 1: B(k,n) = W[n][k] of a q4gsw weight (ops/linear/q4gsw.h): b = qweight words, row stride b_sn words,
//   scales row stride s_sn, group size `group`; requires K % group == 0 and group % 8 == 0.

enable subgroups;

override B_MODE : u32 = 0u;
override RQ : u32 = 4u;   // row quads per workgroup (1..4): 4*RQ rows
override WG : u32 = 64u;  // invocations per workgroup = columns per workgroup
override TILE_M : u32 = 4u * RQ;  // outputs per workgroup (read by the host for the grid, gemm.h)
override TILE_N : u32 = WG;

#include "ops/linear/gemm_params.wgsl"

@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> scales : array<f32>;
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

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

fn q4_decode(word : u32, sh : vec4<u32>, sc : f32, off : f32) -> vec4<f32> {
  return vec4<f32>(vec4<i32>((vec4<u32>(word) >> sh) & vec4<u32>(15u))) * sc + vec4<f32>(off);
}

fn store_quad(acc : vec4<f32>, m : u32, n : u32, z : u32) {
  for (var i = 0u; i < 4u; i++) {
    let gm = m + i;
    if (gm < p.M) {
      var v = p.alpha * acc[i];
      if (p.has_bias != 0u) {
        v += p.beta * bias[p.bias_off + z * p.bias_sb + gm * p.bias_sm + n * p.bias_sn];
      }
      c[p.c_off + z * p.c_sb + gm * p.c_sm + n * p.c_sn] = v;
    }
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32,
        @builtin(subgroup_invocation_id) lane : u32) {
  let m0 = wid.x * (4u * RQ);
  let n = wid.y * WG + lid;
  let z = wid.z;
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
  let a_base = p.a_off + z * p.a_sb;
  let klast = p.K - 1u;
  let sh0 = vec4<u32>(0u, 4u, 8u, 12u);
  let sh1 = vec4<u32>(16u, 20u, 24u, 28u);
  var kw = p.b_off + nc * p.b_sn;  // q4: word index
  var ks = nc * p.s_sn;           // q4: scale index
  var sc = 0.0;
  var off = 0.0;
  let b_col = p.b_off + z * p.b_sb + nc * p.b_sn;
  for (var k0 = 0u; k0 < p.K; k0 += 8u) {
    let kl = k0 + lane;
    let live = kl < p.K;
    let ka = a_base + min(kl, klast) * p.a_sk;
    var b0 : vec4<f32>;
    var b1 : vec4<f32>;
    if (B_MODE == 0u) {
      // Rows past K read a clamped (valid) element; their A values are 0 and their B values zeroed too.
      let kk0 = min(vec4<u32>(k0) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(klast));
      let kk1 = min(vec4<u32>(k0) + vec4<u32>(4u, 5u, 6u, 7u), vec4<u32>(klast));
      let o0 = b_col + kk0 * p.b_sk;
      let o1 = b_col + kk1 * p.b_sk;
      b0 = bitcast<vec4<f32>>(vec4<u32>(b[o0.x], b[o0.y], b[o0.z], b[o0.w]));
      b1 = bitcast<vec4<f32>>(vec4<u32>(b[o1.x], b[o1.y], b[o1.z], b[o1.w]));
      if (k0 + 8u > p.K) {
        b0 = select(vec4<f32>(0.0), b0, vec4<u32>(k0) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(p.K));
        b1 = select(vec4<f32>(0.0), b1, vec4<u32>(k0) + vec4<u32>(4u, 5u, 6u, 7u) < vec4<u32>(p.K));
      }
    } else {
      if (k0 % p.group == 0u) {
        sc = scales[ks];
        off = -8.0 * sc;
        ks++;
      }
      let word = b[kw];
      kw++;
      b0 = q4_decode(word, sh0, sc, off);
      b1 = q4_decode(word, sh1, sc, off);
    }
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
