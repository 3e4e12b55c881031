// The tile machinery shared by the int8 prefill GEMMs (gemm_mmq.wgsl for q4gsw, gemm_mmq_ggml.wgsl for the
// ggml block formats): 128 (m) x 128 (n) outputs per workgroup of 256 invocations, each an 8 x 8 register block
// (rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx, as gemm_big.wgsl); K in slices of NB
// 32-k blocks staged in workgroup memory as u32 of 4 signed bytes, [u32 j of the slice][m/4] (resp. [n/4])
// vec4s, so each step loads 4 vec4<u32> for 64 dot4I8Packed (256 multiply-adds).
// The includer defines NB (1 or 2), the bindings `qa` (quantize_q8's xq, vec4<u32>), `da` (its xd, vec2<f32>)
// and `p : Params` (gemm_common.wgsl), and the two hooks of the entry point `main` below:
//   fn mmq_stage_b(kb0 : u32, n0 : u32, lid : u32): stages the weights of blocks kb0 .. kb0 + NB - 1, columns
//     n0 .. n0 + 127, into Bs (the byte order of each u32 must be the one its quantize_q8 dispatch wrote:
//     ORDER there) and their scales into its own workgroup arrays;
//   fn mmq_block(acc : ptr<function, array<vec4<f32>, 16>>, blk : u32, tx : u32, ty : u32): adds staged block
//     blk's products to acc (mmq_dot, then mmq_apply / mmq_outer with the staged scales).
const TILE_M = 128u;  // outputs per workgroup (read by the host for the grid, gemm.h)
const TILE_N = 128u;

var<workgroup> As : array<vec4<u32>, 256u * NB>;
var<workgroup> Bs : array<vec4<u32>, 256u * NB>;
var<workgroup> Sa : array<vec4<f32>, 32u * NB>;  // [blk][m/4] activation scales d
var<workgroup> Sy : array<vec4<f32>, 32u * NB>;  // [blk][m/4] d * sum q of the block (the weight minimum's term)

// Stages the activations of blocks kb0 .. kb0 + NB - 1 of rows m0 .. m0 + 127 (zeros outside M and K).
fn mmq_stage_a(kb0 : u32, m0 : u32, lid : u32) {
  let KB = p.K / 32u;
  for (var i = 0u; i < NB; i++) {
    let e = lid + 256u * i;
    let mm = e / (2u * NB);  // row of the tile
    let blk = (e / 2u) % NB;
    let hv = e % 2u;  // half a block (4 u32) each
    let kb = kb0 + blk;
    let gm = m0 + mm;
    var av = vec4<u32>(0u);
    if (gm < p.M && kb < KB) {
      av = qa[(gm * KB + kb) * 2u + hv];
    }
    let j0 = blk * 8u + hv * 4u;
    for (var t = 0u; t < 4u; t++) {
      As[(j0 + t) * 32u + mm / 4u][mm % 4u] = av[t];
    }
  }
  let sm = lid / NB;
  let sblk = lid % NB;
  if (sm < 128u) {
    let kb = kb0 + sblk;
    let gm = m0 + sm;
    var s = vec2<f32>(0.0);
    if (gm < p.M && kb < KB) {
      s = da[gm * KB + kb];
    }
    Sa[sblk * 32u + sm / 4u][sm % 4u] = s.x;
    Sy[sblk * 32u + sm / 4u][sm % 4u] = s.y;
  }
}

fn dot4(a : u32, bv : vec4<u32>) -> vec4<i32> {
  return vec4<i32>(dot4I8Packed(a, bv.x), dot4I8Packed(a, bv.y), dot4I8Packed(a, bv.z), dot4I8Packed(a, bv.w));
}

// The exact integer sums over the staged u32 rows j0 .. j0 + nj - 1 of the slice: ip[r * 2 + h] holds the 4
// columns of half h for row r of the 8 x 8 block (|sum| <= 32 * 127 * 128 < 2^24 for nj <= 8, so exact in f32).
fn mmq_dot(j0 : u32, nj : u32, tx : u32, ty : u32) -> array<vec4<i32>, 16> {
  var ip : array<vec4<i32>, 16>;
  for (var i = 0u; i < 16u; i++) {
    ip[i] = vec4<i32>(0);
  }
  for (var j = j0; j < j0 + nj; j++) {
    let r = j * 32u;
    let a0 = As[r + ty];
    let a1 = As[r + 16u + ty];
    let b0 = Bs[r + tx];
    let b1 = Bs[r + 16u + tx];
    ip[0] += dot4(a0.x, b0);
    ip[1] += dot4(a0.x, b1);
    ip[2] += dot4(a0.y, b0);
    ip[3] += dot4(a0.y, b1);
    ip[4] += dot4(a0.z, b0);
    ip[5] += dot4(a0.z, b1);
    ip[6] += dot4(a0.w, b0);
    ip[7] += dot4(a0.w, b1);
    ip[8] += dot4(a1.x, b0);
    ip[9] += dot4(a1.x, b1);
    ip[10] += dot4(a1.y, b0);
    ip[11] += dot4(a1.y, b1);
    ip[12] += dot4(a1.z, b0);
    ip[13] += dot4(a1.z, b1);
    ip[14] += dot4(a1.w, b0);
    ip[15] += dot4(a1.w, b1);
  }
  return ip;
}

// acc[r * 2 + h] += f32(ip[r * 2 + h]) * (s[r] * t_h), with (s0, s1) the row factors of rows 0..3 / 4..7 and
// (t0, t1) the column factors of halves 0 / 1 (written out: constant indices keep acc and ip in registers).
fn mmq_apply(acc : ptr<function, array<vec4<f32>, 16>>, ip : array<vec4<i32>, 16>, s0 : vec4<f32>, s1 : vec4<f32>,
             t0 : vec4<f32>, t1 : vec4<f32>) {
  (*acc)[0] += vec4<f32>(ip[0]) * (s0.x * t0);
  (*acc)[1] += vec4<f32>(ip[1]) * (s0.x * t1);
  (*acc)[2] += vec4<f32>(ip[2]) * (s0.y * t0);
  (*acc)[3] += vec4<f32>(ip[3]) * (s0.y * t1);
  (*acc)[4] += vec4<f32>(ip[4]) * (s0.z * t0);
  (*acc)[5] += vec4<f32>(ip[5]) * (s0.z * t1);
  (*acc)[6] += vec4<f32>(ip[6]) * (s0.w * t0);
  (*acc)[7] += vec4<f32>(ip[7]) * (s0.w * t1);
  (*acc)[8] += vec4<f32>(ip[8]) * (s1.x * t0);
  (*acc)[9] += vec4<f32>(ip[9]) * (s1.x * t1);
  (*acc)[10] += vec4<f32>(ip[10]) * (s1.y * t0);
  (*acc)[11] += vec4<f32>(ip[11]) * (s1.y * t1);
  (*acc)[12] += vec4<f32>(ip[12]) * (s1.z * t0);
  (*acc)[13] += vec4<f32>(ip[13]) * (s1.z * t1);
  (*acc)[14] += vec4<f32>(ip[14]) * (s1.w * t0);
  (*acc)[15] += vec4<f32>(ip[15]) * (s1.w * t1);
}

// acc[r * 2 + h] += u[r] * v_h: an outer product of row factors (u0, u1) and column factors (v0, v1).
fn mmq_outer(acc : ptr<function, array<vec4<f32>, 16>>, u0 : vec4<f32>, u1 : vec4<f32>, v0 : vec4<f32>, v1 : vec4<f32>) {
  (*acc)[0] += u0.x * v0;
  (*acc)[1] += u0.x * v1;
  (*acc)[2] += u0.y * v0;
  (*acc)[3] += u0.y * v1;
  (*acc)[4] += u0.z * v0;
  (*acc)[5] += u0.z * v1;
  (*acc)[6] += u0.w * v0;
  (*acc)[7] += u0.w * v1;
  (*acc)[8] += u1.x * v0;
  (*acc)[9] += u1.x * v1;
  (*acc)[10] += u1.y * v0;
  (*acc)[11] += u1.y * v1;
  (*acc)[12] += u1.z * v0;
  (*acc)[13] += u1.z * v1;
  (*acc)[14] += u1.w * v0;
  (*acc)[15] += u1.w * v1;
}

// Grid: x = ceil(N/128), y = ceil(M/128), z = 1 (batch 1: linear layers); the 8 x 8 block is stored through
// gemm_store_8x8 (bias and the epilogue hook).
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let tile = gemm_tile(wid, nwg, TILE_M, TILE_N);
  if (tile.z >= p.batch) {
    return;
  }
  var acc : array<vec4<f32>, 16>;  // [row 0..7][column half 0..1], zero-initialized
  for (var kb0 = 0u; kb0 < p.K / 32u; kb0 += NB) {
    mmq_stage_a(kb0, tile.m0, lid);
    mmq_stage_b(kb0, tile.n0, lid);
    workgroupBarrier();
    for (var blk = 0u; blk < NB; blk++) {
      mmq_block(&acc, blk, lid % 16u, lid / 16u);
    }
    workgroupBarrier();
  }
  gemm_store_8x8(acc, tile.m0, tile.n0, lid % 16u, lid / 16u, p.c_off, p.bias_off);
}
