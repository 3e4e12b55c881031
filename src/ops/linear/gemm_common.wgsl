// The GEMM parameter block (GemmParams in ops/linear/gemm.h) and the tile/store helpers shared by every GEMM
// kernel (gemm_tiled_body.wgsl, gemm_cpu_body.wgsl, gemm_big.wgsl, gemm_mmq.wgsl). The includer declares the
// bindings `bias` (f32), `c` (f32, read_write) and the uniform `p : Params`.
struct Params {
  M : u32, N : u32, K : u32, batch : u32,
  a_off : u32, a_sb : u32, a_sm : u32, a_sk : u32,
  b_off : u32, b_sb : u32, b_sk : u32, b_sn : u32,
  c_off : u32, c_sb : u32, c_sm : u32, c_sn : u32,
  bias_off : u32, bias_sb : u32, bias_sm : u32, bias_sn : u32,
  has_bias : u32, group : u32, s_sn : u32, zdiv : u32,
  alpha : f32, beta : f32, a_sbo : u32, b_sbo : u32,
  c_sbo : u32, k_split : u32, _pad1 : u32, _pad2 : u32,
}

// Batch entry z's element offset of an operand with batch strides sb (inner) and sbo (outer): z * sb, or with
// the two-level batch (p.zdiv > 0) (z / zdiv) * sbo + (z % zdiv) * sb (GemmParams in gemm.h).
fn gemm_batch_offset(z : u32, sb : u32, sbo : u32) -> u32 {
  if (p.zdiv == 0u) {
    return z * sb;
  }
  return (z / p.zdiv) * sbo + (z % p.zdiv) * sb;
}

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

// Writes gemm_epilogue(alpha * v (+ beta * bias)) to C(z, gm, gn); the including kernel defines the hook
// (gemm_epilogue_none.wgsl, or conv/conv_epilogue.wgsl) (c_base = c_off + z*c_sb, bias_base = bias_off + z*bias_sb).
fn gemm_store(gm : u32, gn : u32, v : f32, c_base : u32, bias_base : u32) {
  var o = p.alpha * v;
  if (p.has_bias != 0u) {
    o += p.beta * bias[bias_base + gm * p.bias_sm + gn * p.bias_sn];
  }
  c[c_base + gm * p.c_sm + gn * p.c_sn] = gemm_epilogue(o);
}

// Stores the register block of the 128 x 128 kernels (gemm_big.wgsl, gemm_mmq.wgsl; mh row and nh column halves,
// 1 or 2: the int8 kernels' smaller tiles; hm rows per row half, 64, or 32 for the int8 kernels' 128 invocations):
// acc[r * 2 + h][j] is C(m0 + (r / 4) * hm + ty * 4 + r % 4, n0 + h * 64 + tx * 4 + j) for r < 4 * mh, h < nh; rows
// and columns outside M, N are skipped.
fn gemm_store_blocks(acc : array<vec4<f32>, 16>, mh : u32, nh : u32, hm : u32, m0 : u32, n0 : u32, tx : u32,
                     ty : u32, c_base : u32, bias_base : u32) {
  for (var r = 0u; r < 4u * mh; r++) {
    let gm = m0 + (r / 4u) * hm + ty * 4u + r % 4u;
    if (gm >= p.M) {
      continue;
    }
    for (var h = 0u; h < nh; h++) {
      for (var j = 0u; j < 4u; j++) {
        let gn = n0 + h * 64u + tx * 4u + j;
        if (gn < p.N) {
          gemm_store(gm, gn, acc[r * 2u + h][j], c_base, bias_base);
        }
      }
    }
  }
}

fn gemm_store_8x8(acc : array<vec4<f32>, 16>, m0 : u32, n0 : u32, tx : u32, ty : u32, c_base : u32, bias_base : u32) {
  gemm_store_blocks(acc, 2u, 2u, 64u, m0, n0, tx, ty, c_base, bias_base);
}
