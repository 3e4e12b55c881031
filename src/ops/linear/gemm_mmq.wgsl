// Int8 prefill GEMM for GPUs with packed int8 dot products (MMQ-style, as llama.cpp's mul_mmq):
//   C[m, n] = alpha * sum_kb dA[m][kb] * dW[n][kb] * sum_{k in kb} qA[m][k] * qW[n][k]  (+ beta * bias[n])
// over 32-k blocks kb, with qA, dA the activations quantized per block by quantize_q8.wgsl (int8 and f32 scale)
// and qW, dW the weight's codes and block scale (q4gsw, ops/linear/q4gsw.h: qW = code - 8, dW the
// group's scale; G in {32, 64, 128}, so one scale per 32-k block). The block's integer sum is exact (8
// dot4I8Packed of 4 products each, |sum| <= 32 * 127 * 8 < 2^24, so its f32 conversion is exact too); the scales
// are applied once per block and output, then f32 accumulation over the blocks. The error against the f32
// product is therefore the activation rounding (quantize_q8.wgsl: <= dA / 2 per element, i.e. per output at most
// sum_kb dA[m][kb] / 2 * sum_{k in kb} |W[n][k]|) plus f32 accumulation.
// Tiles: 128 (m) x 128 (n) outputs per workgroup of 256 invocations, each an 8 x 8 block (rows ty*4 + {0..3}
// and 64 + ty*4 + {0..3}, columns likewise with tx, as gemm_big.wgsl); K in slices of NB blocks staged in
// workgroup memory as u32 of 4 signed bytes, [u32 j of the slice][m/4] (resp. [n/4]) vec4s, so each step loads 4
// vec4<u32> for 64 dot4I8Packed (256 multiply-adds). Nibbles are expanded to signed bytes once per workgroup on
// staging. Grid: x = ceil(N/128), y = ceil(M/128), z = 1 (batch 1: linear layers). Out-of-range rows, columns
// and blocks are staged as zeros and not written: any M, N and K % 32 == 0.
// Bindings: 0 qA (u32 vec4s, quantize_q8's xq, row m at block m * K/32), 1 b (q4gsw words, row n at word
// n * b_sn), 2 scales (f16 pairs or f32, read through q4gsw_scale: group g of row n at n * s_sn + g), 3 bias, 4 c, 5 params (GemmParams; a_* unused,
// the activations are contiguous [M, K]), 6 dA (quantize_q8's xd: vec2(d, d * sum q) per block).
const TILE_M = 128u;  // outputs per workgroup (read by the host for the grid, gemm.h)
const TILE_N = 128u;
const NB = 2u;        // 32-k blocks per staged slice (1 or 2: the scale staging covers 256 / NB rows)

#include "ops/linear/gemm_common.wgsl"
#include "ops/linear/q4gsw_scale.wgsl"
#include "ops/linear/gemm_epilogue_none.wgsl"

@group(0) @binding(0) var<storage, read> qa : array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b : array<u32>;
@group(0) @binding(2) var<storage, read> scales : array<u32>;  // q4gsw_scale()
@group(0) @binding(3) var<storage, read> bias : array<f32>;
@group(0) @binding(4) var<storage, read_write> c : array<f32>;
@group(0) @binding(5) var<uniform> p : Params;
@group(0) @binding(6) var<storage, read> da : array<vec2<f32>>;

// [u32 j = blk * 8 + w][m/4]: 4 consecutive m (resp. n) of one u32 (4 k) of the slice.
var<workgroup> As : array<vec4<u32>, 256u * NB>;
var<workgroup> Bs : array<vec4<u32>, 256u * NB>;
var<workgroup> Sa : array<vec4<f32>, 32u * NB>;  // [blk][m/4] activation scales
var<workgroup> Sb : array<vec4<f32>, 32u * NB>;  // [blk][n/4] weight scales

// 4 codes 0..15 in the low nibbles of the bytes of v -> the 4 signed bytes code - 8 (bit 3 of code ^ 8 marks a
// negative result, whose high nibble must then be all ones: 8 * 30 = 0xF0, no carry between bytes).
fn signed_codes(v : u32) -> u32 {
  let t = v ^ 0x08080808u;
  return t | ((t & 0x08080808u) * 30u);
}

fn load_slice(kb0 : u32, m0 : u32, n0 : u32, lid : u32) {
  let KB = p.K / 32u;
  for (var i = 0u; i < NB; i++) {
    let e = lid + 256u * i;
    let mm = e / (2u * NB);  // row (or column) of the tile
    let blk = (e / 2u) % NB;
    let hv = e % 2u;
    let kb = kb0 + blk;
    let j0 = blk * 8u + hv * 4u;
    // activations: half a block (4 u32) of row mm
    let gm = m0 + mm;
    var av = vec4<u32>(0u);
    if (gm < p.M && kb < KB) {
      av = qa[(gm * KB + kb) * 2u + hv];
    }
    for (var t = 0u; t < 4u; t++) {
      As[(j0 + t) * 32u + mm / 4u][mm % 4u] = av[t];
    }
    // weights: words 2 * hv, 2 * hv + 1 of row gn's block (16 codes -> 4 u32 of signed bytes)
    let gn = n0 + mm;
    var w0 = 0x88888888u;  // codes of 8 -> 0
    var w1 = 0x88888888u;
    if (gn < p.N && kb < KB) {
      let wi = gn * p.b_sn + kb * 4u + hv * 2u;
      w0 = b[wi];
      w1 = b[wi + 1u];
    }
    let col = mm / 4u;
    let lane = mm % 4u;
    Bs[(j0 + 0u) * 32u + col][lane] = signed_codes(w0 & 0x0F0F0F0Fu);
    Bs[(j0 + 1u) * 32u + col][lane] = signed_codes((w0 >> 4u) & 0x0F0F0F0Fu);
    Bs[(j0 + 2u) * 32u + col][lane] = signed_codes(w1 & 0x0F0F0F0Fu);
    Bs[(j0 + 3u) * 32u + col][lane] = signed_codes((w1 >> 4u) & 0x0F0F0F0Fu);
  }
  // scales: one per row (column) and block
  let sm = lid / NB;
  let sblk = lid % NB;
  if (sm < 128u) {
    let kb = kb0 + sblk;
    let gm = m0 + sm;
    let gn = n0 + sm;
    var sa = 0.0;
    var sb = 0.0;
    if (gm < p.M && kb < KB) {
      sa = da[gm * KB + kb].x;
    }
    if (gn < p.N && kb < KB) {
      sb = q4gsw_scale(gn * p.s_sn + (kb * 32u) / p.group);
    }
    Sa[sblk * 32u + sm / 4u][sm % 4u] = sa;
    Sb[sblk * 32u + sm / 4u][sm % 4u] = sb;
  }
}

fn dot4(a : u32, bv : vec4<u32>) -> vec4<i32> {
  return vec4<i32>(dot4I8Packed(a, bv.x), dot4I8Packed(a, bv.y), dot4I8Packed(a, bv.z), dot4I8Packed(a, bv.w));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let tile = gemm_tile(wid, nwg, TILE_M, TILE_N);
  if (tile.z >= p.batch) {
    return;
  }
  let n0 = tile.n0;
  let m0 = tile.m0;
  let tx = lid % 16u;
  let ty = lid / 16u;
  var acc : array<vec4<f32>, 16>;  // [row 0..7][column half 0..1]
  for (var i = 0u; i < 16u; i++) {
    acc[i] = vec4<f32>(0.0);
  }
  let KB = p.K / 32u;
  for (var kb0 = 0u; kb0 < KB; kb0 += NB) {
    load_slice(kb0, m0, n0, lid);
    workgroupBarrier();
    for (var blk = 0u; blk < NB; blk++) {
      var ip : array<vec4<i32>, 16>;
      for (var i = 0u; i < 16u; i++) {
        ip[i] = vec4<i32>(0);
      }
      for (var j = 0u; j < 8u; j++) {
        let r = (blk * 8u + j) * 32u;
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
      let sa0 = Sa[blk * 32u + ty];
      let sa1 = Sa[blk * 32u + 16u + ty];
      let sb0 = Sb[blk * 32u + tx];
      let sb1 = Sb[blk * 32u + 16u + tx];
      // written out (constant indices keep acc and ip in registers)
      acc[0] += vec4<f32>(ip[0]) * (sa0.x * sb0);
      acc[1] += vec4<f32>(ip[1]) * (sa0.x * sb1);
      acc[2] += vec4<f32>(ip[2]) * (sa0.y * sb0);
      acc[3] += vec4<f32>(ip[3]) * (sa0.y * sb1);
      acc[4] += vec4<f32>(ip[4]) * (sa0.z * sb0);
      acc[5] += vec4<f32>(ip[5]) * (sa0.z * sb1);
      acc[6] += vec4<f32>(ip[6]) * (sa0.w * sb0);
      acc[7] += vec4<f32>(ip[7]) * (sa0.w * sb1);
      acc[8] += vec4<f32>(ip[8]) * (sa1.x * sb0);
      acc[9] += vec4<f32>(ip[9]) * (sa1.x * sb1);
      acc[10] += vec4<f32>(ip[10]) * (sa1.y * sb0);
      acc[11] += vec4<f32>(ip[11]) * (sa1.y * sb1);
      acc[12] += vec4<f32>(ip[12]) * (sa1.z * sb0);
      acc[13] += vec4<f32>(ip[13]) * (sa1.z * sb1);
      acc[14] += vec4<f32>(ip[14]) * (sa1.w * sb0);
      acc[15] += vec4<f32>(ip[15]) * (sa1.w * sb1);
    }
    workgroupBarrier();
  }
  gemm_store_8x8(acc, m0, n0, tx, ty, p.c_off, p.bias_off);
}
