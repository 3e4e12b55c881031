// Register-tiled GEMM for CPU adapters (Mesa lavapipe / llvmpipe): the same operation, parameters and bindings
// as ops/linear/gemm.wgsl (see GemmParams in gemm.h):
//   C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n), f32 accumulation.
//
// Why a second kernel: a CPU driver runs 8 (256-bit SIMD) invocations in lock step, one per vector lane, keeps
// each per-invocation scalar in one vector register and turns every load whose address differs between lanes
// into a gather; workgroup barriers switch between emulated invocations. This kernel therefore uses no
// workgroup memory and no barriers, and makes one operand uniform: a workgroup owns 4*RQ rows (m, the same for
// every invocation, so A loads are scalar loads broadcast to all lanes) and WG columns (n, one per invocation,
// so B is the only gathered operand: one gather per k, or per 8 k for q4 words). Each invocation keeps 4*RQ
// accumulators (RQ vec4s = rows) and walks the whole K range: RQ = 4 gives 16 f32 FMAs per gather.
// Grid: x = ceil(M / (4*RQ)) row blocks (fastest, so consecutive workgroups reuse the same B columns from cache),
// y = ceil(N / WG), z = batch. Rows/columns past M/N are clamped for loads (no branch in the loop) and not
// written, so any M, N, K works.
// B_MODE 0: B(z,k,n) = bitcast<f32>(b[b_off + z*b_sb + k*b_sk + n*b_sn]).
// B_MODE 1: B(k,n) = W[n][k] of a q4gsw weight (ops/linear/q4gsw.h); requires K % group == 0, group % 8 == 0.

override B_MODE : u32 = 0u;
override RQ : u32 = 4u;   // row quads per workgroup (1..4): 4*RQ rows
override WG : u32 = 64u;  // invocations per workgroup = columns per workgroup

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
@group(0) @binding(2) var<storage, read> scales : array<f32>;
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;

// A values of the 4 rows of quad q at element offset `ka` (k folded in); rows are clamped offsets in `ro`.
fn a4(ka : u32, ro : vec4<u32>) -> vec4<f32> {
  return vec4<f32>(a[ka + ro.x], a[ka + ro.y], a[ka + ro.z], a[ka + ro.w]);
}

fn row_offsets(m : u32, mlast : u32) -> vec4<u32> {
  return min(vec4<u32>(m, m + 1u, m + 2u, m + 3u), vec4<u32>(mlast)) * p.a_sm;
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
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
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
  var ka = p.a_off + z * p.a_sb;
  if (B_MODE == 0u) {
    var kb = p.b_off + z * p.b_sb + nc * p.b_sn;
    for (var k = 0u; k < p.K; k++) {
      let bv = bitcast<f32>(b[kb]);
      acc0 += a4(ka, ro0) * bv;
      if (RQ > 1u) { acc1 += a4(ka, ro1) * bv; }
      if (RQ > 2u) { acc2 += a4(ka, ro2) * bv; }
      if (RQ > 3u) { acc3 += a4(ka, ro3) * bv; }
      ka += p.a_sk;
      kb += p.b_sk;
    }
  } else {
    var kw = p.b_off + nc * p.b_sn;  // word index
    var ks = nc * p.s_sn;           // scale index
    let wpg = p.group / 8u;         // words per group
    for (var k0 = 0u; k0 < p.K; k0 += p.group) {
      let sc = scales[ks];
      let off = -8.0 * sc;
      ks++;
      for (var w = 0u; w < wpg; w++) {
        let word = b[kw];
        kw++;
        for (var j = 0u; j < 8u; j++) {
          let bv = f32(i32((word >> (4u * j)) & 15u)) * sc + off;
          acc0 += a4(ka, ro0) * bv;
          if (RQ > 1u) { acc1 += a4(ka, ro1) * bv; }
          if (RQ > 2u) { acc2 += a4(ka, ro2) * bv; }
          if (RQ > 3u) { acc3 += a4(ka, ro3) * bv; }
          ka += p.a_sk;
        }
      }
    }
  }
  if (n >= p.N) {
    return;
  }
  store_quad(acc0, m0, n, z);
  if (RQ > 1u) { store_quad(acc1, m0 + 4u, n, z); }
  if (RQ > 2u) { store_quad(acc2, m0 + 8u, n, z); }
  if (RQ > 3u) { store_quad(acc3, m0 + 12u, n, z); }
}
