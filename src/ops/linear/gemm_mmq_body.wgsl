// The tile machinery shared by the int8 prefill GEMMs (gemm_mmq.wgsl for q4gsw, gemm_mmq_ggml.wgsl for the
// ggml block formats): TILE_M (m) x TILE_N (n) outputs per workgroup of WG invocations (16 x TY, TY = WG / 16:
// 16 or 8), each a register block of MH row halves x NH column halves of 4 x 4 (rows ty*4 + {0..3} and, with MH 2,
// 4 TY + ty*4 + {0..3}; columns tx*4 + {0..3} and, with NH 2, 64 + tx*4 + {0..3}; MH = NH = 2 at WG 256 is
// gemm_big.wgsl's 8 x 8; WG 128 halves the rows of a tile for the same registers per invocation); K in slices of NB 32-k
// blocks staged in workgroup memory as u32 of 4 signed bytes, [u32 j of the slice][m/4] (resp. [n/4]) vec4s,
// so each step loads MH + NH vec4<u32> for 16 * MH * NH dot4I8Packed.
// The variant (tuning policy's MmqTile, ops::gemm_mmq_kernel): overrides WG (256 or 128), MH, NH (1 or 2), NB
// (1, 2 or 4; WG 128 with NH 2: 1 or 2), CVT (how the block sums become f32: mmq_f32) and PF (the software pipeline of the main loop: with PF 1 the loads
// of slice s + 1 are issued into registers before slice s's products, so their latency overlaps the arithmetic;
// the values are the same either way).
// The includer defines the bindings `qa` (quantize_q8's xq, vec4<u32>), `da` (its xd, vec2<f32>)
// and `p : Params` (gemm_common.wgsl), and the hooks of the entry point `main` below:
//   struct MmqB, fn mmq_load_b(kb0 : u32, n0 : u32, lid : u32) -> MmqB and fn mmq_store_b(r : MmqB, lid : u32):
//     the weights of blocks kb0 .. kb0 + NB - 1, columns n0 .. n0 + TILE_N - 1, read from memory into the
//     invocation's registers (load), then written to Bs ([j][n/4], row stride TILE_N / 4; the byte order of each
//     u32 must be the one its quantize_q8 dispatch wrote: ORDER there) and their scales to its own [blk][n/4]
//     workgroup arrays of SN_LEN vec4s (index mmq_ni) (store);
//   fn mmq_block(acc : ptr<function, array<vec4<f32>, 16>>, blk : u32, tx : u32, ty : u32): adds staged block
//     blk's products to acc (mmq_dot, then mmq_apply / mmq_outer with the staged scales).
override MH : u32 = 2u;  // row halves of 64 (TILE_M 64 or 128)
override NH : u32 = 2u;  // column halves of 64 (TILE_N 64 or 128)
override NB : u32 = 2u;  // 32-k blocks per staged slice (1, 2 or 4)
override CVT : u32 = 1u;  // block sums to f32: 0 a conversion, 1 through the exponent bits (mmq_f32)
override PF : u32 = 0u;   // 1: the next slice's loads in flight during this slice's products (main)
override WG : u32 = 256u;  // invocations per workgroup: 16 columns x TY rows of them
override TY : u32 = WG / 16u;
override TILE_M : u32 = 4u * TY * MH;  // outputs per workgroup (read by the host for the grid, gemm.h)
override TILE_N : u32 = 64u * NH;
override A_LEN : u32 = 8u * NB * TY * MH;  // [j][m/4]
override B_LEN : u32 = 8u * NB * 16u * NH;  // [j][n/4]
override SM_LEN : u32 = NB * TY * MH;      // [blk][m/4]
override SN_LEN : u32 = NB * 16u * NH;      // [blk][n/4]

var<workgroup> As : array<vec4<u32>, A_LEN>;
var<workgroup> Bs : array<vec4<u32>, B_LEN>;
var<workgroup> Sa : array<vec4<f32>, SM_LEN>;  // [blk][m/4] activation scales d
var<workgroup> Sy : array<vec4<f32>, SM_LEN>;  // [blk][m/4] d * sum q of the block (the weight minimum's term)

// Index of the staged [blk][m/4] (resp. [n/4]) vec4 of row (column) half h of invocation ty (tx); half 1 of a
// one-half tile maps onto half 0 (in bounds; its products are never used).
fn mmq_mi(blk : u32, h : u32, ty : u32) -> u32 { return blk * (TILE_M / 4u) + min(h, MH - 1u) * TY + ty; }
fn mmq_ni(blk : u32, h : u32, tx : u32) -> u32 { return blk * (TILE_N / 4u) + min(h, NH - 1u) * 16u + tx; }

// The activations of blocks kb0 .. kb0 + NB - 1 of rows m0 .. m0 + TILE_M - 1 (zeros outside M and K), as the
// invocation holds them between mmq_load_a and mmq_store_a: item i of each array is element lid + WG i of the
// staging loops (at most 4 half-blocks and 2 scale pairs: TILE_M * NB <= 2 WG).
struct MmqA {
  v : array<vec4<u32>, 4>,  // half a block (4 u32) of row e / (2 NB), block (e / 2) % NB, half e % 2
  s : array<vec2<f32>, 2>,  // (d, d * sum q) of row e / NB, block e % NB
}

fn mmq_load_a(kb0 : u32, m0 : u32, lid : u32) -> MmqA {
  let KB = p.K / 32u;
  var r : MmqA;
  for (var i = 0u; i < 4u; i++) {
    let e = lid + WG * i;
    let gm = m0 + e / (2u * NB);
    let kb = kb0 + (e / 2u) % NB;
    if (e < TILE_M * NB * 2u && gm < p.M && kb < KB) {
      r.v[i] = qa[(gm * KB + kb) * 2u + e % 2u];
    }
  }
  for (var i = 0u; i < 2u; i++) {
    let e = lid + WG * i;
    let gm = m0 + e / NB;
    let kb = kb0 + e % NB;
    if (e < TILE_M * NB && gm < p.M && kb < KB) {
      r.s[i] = da[gm * KB + kb];
    }
  }
  return r;
}

fn mmq_store_a(r : MmqA, lid : u32) {
  for (var i = 0u; i < 4u; i++) {
    let e = lid + WG * i;
    if (e < TILE_M * NB * 2u) {
      let mm = e / (2u * NB);  // row of the tile
      let j0 = ((e / 2u) % NB) * 8u + (e % 2u) * 4u;
      for (var t = 0u; t < 4u; t++) {
        As[(j0 + t) * (TILE_M / 4u) + mm / 4u][mm % 4u] = r.v[i][t];
      }
    }
  }
  for (var i = 0u; i < 2u; i++) {
    let e = lid + WG * i;
    if (e < TILE_M * NB) {
      let sm = e / NB;
      let si = (e % NB) * (TILE_M / 4u) + sm / 4u;
      Sa[si][sm % 4u] = r.s[i].x;
      Sy[si][sm % 4u] = r.s[i].y;
    }
  }
}

fn dot4(a : u32, bv : vec4<u32>) -> vec4<i32> {
  return vec4<i32>(dot4I8Packed(a, bv.x), dot4I8Packed(a, bv.y), dot4I8Packed(a, bv.z), dot4I8Packed(a, bv.w));
}

// The exact integer sums over the staged u32 rows j0 .. j0 + nj - 1 of the slice: ip[r * 2 + h] holds the 4
// columns of half h for row r of the register block (|sum| <= 32 * 127 * 128 < 2^24 for nj <= 8, so exact in
// f32); entries of absent halves stay 0 (the MH / NH tests are constants after override substitution).
fn mmq_dot(j0 : u32, nj : u32, tx : u32, ty : u32) -> array<vec4<i32>, 16> {
  var ip : array<vec4<i32>, 16>;  // CVT 1: starts at the bits of 1.5 * 2^23 (mmq_f32), which the products add to
  for (var i = 0u; i < 16u; i++) {
    ip[i] = vec4<i32>(select(0i, 0x4B400000i, CVT == 1u));
  }
  for (var j = j0; j < j0 + nj; j++) {
    let ra = j * (TILE_M / 4u);
    let rb = j * (TILE_N / 4u);
    let a0 = As[ra + ty];
    let b0 = Bs[rb + tx];
    let a1 = As[ra + min(1u, MH - 1u) * TY + ty];  // a0's address again in a one-half tile (unused there)
    let b1 = Bs[rb + min(1u, NH - 1u) * 16u + tx];
    ip[0] += dot4(a0.x, b0);
    ip[2] += dot4(a0.y, b0);
    ip[4] += dot4(a0.z, b0);
    ip[6] += dot4(a0.w, b0);
    if (NH == 2u) {
      ip[1] += dot4(a0.x, b1);
      ip[3] += dot4(a0.y, b1);
      ip[5] += dot4(a0.z, b1);
      ip[7] += dot4(a0.w, b1);
    }
    if (MH == 2u) {
      ip[8] += dot4(a1.x, b0);
      ip[10] += dot4(a1.y, b0);
      ip[12] += dot4(a1.z, b0);
      ip[14] += dot4(a1.w, b0);
      if (NH == 2u) {
        ip[9] += dot4(a1.x, b1);
        ip[11] += dot4(a1.y, b1);
        ip[13] += dot4(a1.z, b1);
        ip[15] += dot4(a1.w, b1);
      }
    }
  }
  return ip;
}

// An exact block sum (|sum| < 2^22) as f32. CVT 1: mmq_dot started the sum at the bits of 1.5 * 2^23, so v is
// the float 1.5 * 2^23 + sum exactly (the mantissa field holds 2^22 + sum), minus 1.5 * 2^23 (exact too): one
// float add in place of an int-to-float conversion, which GPUs issue at a quarter of the add rate or less
// (NVIDIA: 16 per clock per SM against 64 dot4I8Packed), 64 of them per 512 dot products of a 128 x 128 tile;
// the bias rides in the dot products' accumulator, so it costs no integer add.
fn mmq_f32(v : vec4<i32>) -> vec4<f32> {
  if (CVT == 1u) {
    return bitcast<vec4<f32>>(v) - vec4<f32>(12582912.0);
  }
  return vec4<f32>(v);
}

// acc[r * 2 + h] += f32(ip[r * 2 + h]) * (s[r] * t_h), with (s0, s1) the row factors of rows 0..3 / 4..7 and
// (t0, t1) the column factors of halves 0 / 1 (written out: constant indices keep acc and ip in registers; the
// absent halves of a smaller tile are skipped).
fn mmq_apply(acc : ptr<function, array<vec4<f32>, 16>>, ip : array<vec4<i32>, 16>, s0 : vec4<f32>, s1 : vec4<f32>,
             t0 : vec4<f32>, t1 : vec4<f32>) {
  (*acc)[0] += mmq_f32(ip[0]) * (s0.x * t0);
  (*acc)[2] += mmq_f32(ip[2]) * (s0.y * t0);
  (*acc)[4] += mmq_f32(ip[4]) * (s0.z * t0);
  (*acc)[6] += mmq_f32(ip[6]) * (s0.w * t0);
  if (NH == 2u) {
    (*acc)[1] += mmq_f32(ip[1]) * (s0.x * t1);
    (*acc)[3] += mmq_f32(ip[3]) * (s0.y * t1);
    (*acc)[5] += mmq_f32(ip[5]) * (s0.z * t1);
    (*acc)[7] += mmq_f32(ip[7]) * (s0.w * t1);
  }
  if (MH == 2u) {
    (*acc)[8] += mmq_f32(ip[8]) * (s1.x * t0);
    (*acc)[10] += mmq_f32(ip[10]) * (s1.y * t0);
    (*acc)[12] += mmq_f32(ip[12]) * (s1.z * t0);
    (*acc)[14] += mmq_f32(ip[14]) * (s1.w * t0);
    if (NH == 2u) {
      (*acc)[9] += mmq_f32(ip[9]) * (s1.x * t1);
      (*acc)[11] += mmq_f32(ip[11]) * (s1.y * t1);
      (*acc)[13] += mmq_f32(ip[13]) * (s1.z * t1);
      (*acc)[15] += mmq_f32(ip[15]) * (s1.w * t1);
    }
  }
}

// acc[r * 2 + h] += u[r] * v_h: an outer product of row factors (u0, u1) and column factors (v0, v1).
fn mmq_outer(acc : ptr<function, array<vec4<f32>, 16>>, u0 : vec4<f32>, u1 : vec4<f32>, v0 : vec4<f32>, v1 : vec4<f32>) {
  (*acc)[0] += u0.x * v0;
  (*acc)[2] += u0.y * v0;
  (*acc)[4] += u0.z * v0;
  (*acc)[6] += u0.w * v0;
  if (NH == 2u) {
    (*acc)[1] += u0.x * v1;
    (*acc)[3] += u0.y * v1;
    (*acc)[5] += u0.z * v1;
    (*acc)[7] += u0.w * v1;
  }
  if (MH == 2u) {
    (*acc)[8] += u1.x * v0;
    (*acc)[10] += u1.y * v0;
    (*acc)[12] += u1.z * v0;
    (*acc)[14] += u1.w * v0;
    if (NH == 2u) {
      (*acc)[9] += u1.x * v1;
      (*acc)[11] += u1.y * v1;
      (*acc)[13] += u1.z * v1;
      (*acc)[15] += u1.w * v1;
    }
  }
}

// Grid: x = ceil(N/TILE_N), y = ceil(M/TILE_M), z = p.batch; the register block is stored through
// gemm_store_blocks (bias and the epilogue hook). Split K (p.batch = S > 1, ops/linear/gemm.h mmq_splits): z
// sums the 32-k blocks z * p.k_split .. (z + 1) * p.k_split - 1 (a multiple of NB) into C at p.c_off + z * p.c_sb;
// p.k_split 0 (batch 1): all of K.
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let tile = gemm_tile(wid, nwg, TILE_M, TILE_N);
  if (tile.z >= p.batch) {
    return;
  }
  var acc : array<vec4<f32>, 16>;  // [row 0..7][column half 0..1], zero-initialized
  let kb_n = p.K / 32u;
  let kb_begin = tile.z * p.k_split;
  let kb_end = select(min(kb_n, kb_begin + p.k_split), kb_n, p.k_split == 0u);
  var ra : MmqA;
  var rb : MmqB;
  if (PF == 1u) {
    ra = mmq_load_a(kb_begin, tile.m0, lid);
    rb = mmq_load_b(kb_begin, tile.n0, lid);
  }
  for (var kb0 = kb_begin; kb0 < kb_end; kb0 += NB) {
    if (PF == 0u) {
      ra = mmq_load_a(kb0, tile.m0, lid);
      rb = mmq_load_b(kb0, tile.n0, lid);
    }
    mmq_store_a(ra, lid);
    mmq_store_b(rb, lid);
    workgroupBarrier();
    if (PF == 1u) {  // the next slice (zeros past K), held in registers until the next store
      ra = mmq_load_a(kb0 + NB, tile.m0, lid);
      rb = mmq_load_b(kb0 + NB, tile.n0, lid);
    }
    for (var blk = 0u; blk < NB; blk++) {
      mmq_block(&acc, blk, lid % 16u, lid / 16u);
    }
    workgroupBarrier();
  }
  gemm_store_blocks(acc, MH, NH, 4u * TY, tile.m0, tile.n0, lid % 16u, lid / 16u, p.c_off + tile.z * p.c_sb, p.bias_off);
}
