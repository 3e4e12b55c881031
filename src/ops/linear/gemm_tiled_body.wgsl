// The tiled GEMM kernel body (GPUs): C[z, m, n] = alpha * sum_k A(z, m, k) * B(z, k, n) + beta * bias(z, m, n),
// f32 accumulation, every operand addressed through offsets and element strides in the uniform (GemmParams in
// ops/linear/gemm.h). Tiles: 64 (m) x 64 (n) outputs per workgroup of 256 invocations, each a 4x4 block; K is
// walked in slices of 32 staged in workgroup memory (16 KiB). Grid: x = ceil(N/64), y = ceil(M/64), z = batch
// (a batch past the z limit folds into y, gemm_grid).
// Out-of-range rows/cols/k of a tile are loaded as zeros and not written, so any M, N, K works.
// A(z, m, k) = a[a_off + z*a_sb + m*a_sm + k*a_sk]. The including file (gemm.wgsl for f32 / q4 weights,
// ops/conv/conv_gemm.wgsl for implicit im2col) defines the B loader
//   fn load_b_slice(k0 : u32, n0 : u32, lid : u32, b_base : u32)
// which writes B(z, k0 + kk, n0 + nn) (0 outside K, N) to Bs[kk * 16 + nn / 4][nn % 4] for the slice's 32 x 64
// values, b_base = b_off + z * b_sb.

const TILE_M = 64u;  // outputs per workgroup (read by the host for the grid, gemm.h)
const TILE_N = 64u;

#include "ops/linear/gemm_params.wgsl"


// [k][m/4] and [k][n/4]: a 4-vector holds 4 consecutive m (resp. n) of one k.
var<workgroup> As : array<vec4<f32>, 512>;
var<workgroup> Bs : array<vec4<f32>, 512>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let tile = gemm_tile(wid, nwg, TILE_M, TILE_N);
  let z = tile.z;
  if (z >= p.batch) {
    return;
  }
  let n0 = tile.n0;
  let m0 = tile.m0;
  let tx = lid % 16u;
  let ty = lid / 16u;
  var acc : array<vec4<f32>, 4>;
  for (var i = 0u; i < 4u; i++) {
    acc[i] = vec4<f32>(0.0);
  }
  let a_base = p.a_off + gemm_batch_offset(z, p.a_sb, p.a_sbo);
  let b_base = p.b_off + gemm_batch_offset(z, p.b_sb, p.b_sbo);
  for (var k0 = 0u; k0 < p.K; k0 += 32u) {
    for (var i = 0u; i < 8u; i++) {
      let e = lid + 256u * i;
      let mm = e / 32u;
      let kk = e % 32u;
      let gm = m0 + mm;
      let gk = k0 + kk;
      var v = 0.0;
      if (gm < p.M && gk < p.K) {
        v = a[a_base + gm * p.a_sm + gk * p.a_sk];
      }
      As[kk * 16u + mm / 4u][mm % 4u] = v;
    }
    load_b_slice(k0, n0, lid, b_base);
    workgroupBarrier();
    for (var k = 0u; k < 32u; k++) {
      let av = As[k * 16u + ty];
      let bv = Bs[k * 16u + tx];
      acc[0] += av.x * bv;
      acc[1] += av.y * bv;
      acc[2] += av.z * bv;
      acc[3] += av.w * bv;
    }
    workgroupBarrier();
  }
  let c_base = p.c_off + gemm_batch_offset(z, p.c_sb, p.c_sbo);
  let bias_base = p.bias_off + z * p.bias_sb;
  for (var i = 0u; i < 4u; i++) {
    let gm = m0 + ty * 4u + i;
    if (gm >= p.M) {
      break;
    }
    for (var j = 0u; j < 4u; j++) {
      let gn = n0 + tx * 4u + j;
      if (gn < p.N) {
        gemm_store(gm, gn, acc[i][j], c_base, bias_base);
      }
    }
  }
}
