// q4gsw GEMV (decode, M = 1) with packed int8 dot products: out[n_base + n] = sum_k x[k] * W[n][k]
// (+ bias[n_base + n]) for n < N, W in the q4gsw layout (ops/linear/q4gsw.h) bound from row 0 of this dispatch's
// slice. The same workgroup shape, row ownership and reduction as gemv_q4.wgsl; what differs is the inner
// product: instead of decoding every 4-bit code to f32 (mask, exponent, subtract, FMA per weight), a word of 8
// codes is split into two words of 4 unsigned bytes (one AND, one shift + AND) and multiplied with x by
// dot4I8Packed (SPIR-V OpSDot: one instruction for 4 products where the GPU has it).
//
// x stays f32 in memory; the workgroup converts it on staging to 22-bit block floating point: per block of 32 k
// (= one vec4<u32> of codes, and G >= 32 so one weight scale per block), q[k] = round(x[k] * 2^e) with the power
// of two 2^e chosen so that the block's largest |x| lands in [2^21, 2^22). Scaling by a power of two is exact,
// so this rounding is the kernel's only error beyond f32 accumulation: |x[k] - q[k] 2^-e| <= 2^-22 max_block |x|,
// i.e. per block of row n at most 2^-22 * max_block |x| * sum_block |W[n][k]|. Where a block's values are of
// similar size this matches f32 (which rounds each product to 2^-24 of itself); a block holding an outlier
// rounds its small values coarsely, which shows in rows whose weight at the outlier is (near) zero: x of 1 beside
// an outlier of 1e4 is kept to ~2.4e-3 (tests/kernels/linear_test.cpp checks the bound; WGRT_GEMV_Q4_ROUTE=wg runs
// the f32-decode kernel instead). q is split into three signed byte planes,
// q = hi * 2^16 + mid * 2^8 + lo (lo, mid in -128..127, |hi| <= 64), so that
//   sum_k (code_k - 8) * q_k = 2^16 D_hi + 2^8 D_mid + D_lo - 8 * sum_k q_k,   D_p = sum_k code_k * plane_p[k],
// each D_p from 8 dot4I8Packed, all in exact i32 arithmetic (|result| <= 32 * 8 * 2^22 = 2^30; intermediates may
// wrap, which two's complement addition undoes). The block's contribution is then
// (f32(result) * scale[n][g]) * 2^-e (the power of two adds no rounding), then the f32 accumulation of the blocks
// as in gemv_q4.wgsl.
// Edges: a block with an infinite or NaN x gets a NaN scale, so its rows' outputs are NaN (f32 arithmetic gives
// NaN for NaN and +-inf for inf); e is capped at 126, so a block whose largest |x| is below 2^-105 (about
// 2.5e-32) keeps fewer bits, and subnormal x (below 2^-126) round to multiples of 2^-126 (mostly 0; GPUs that
// flush subnormals read them as 0 anyway).
//
// Workgroup memory: the planes as [6][XB] vec4<u32> (XB = K / 32 blocks; vec4 j = 2 * plane + parity, parity 0
// for the even k of each word (bytes of code nibbles 0, 2, 4, 6), 1 for the odd; component c for word c of the
// block), so the TK k lanes of a row, which take consecutive blocks, read consecutive addresses; plus the
// block's 2^-e, 8 * the sum of q per word, and the largest exponent per word (staging only): 132 bytes per 32 k
// beside the reduction buffer (the host reflects the declarations below to check the fit, wgsl_reflect.h). Staging runs one invocation per word of 8 k.
#include "ops/common/index.wgsl"
#include "ops/linear/gemv_q4_bindings.wgsl"
#include "ops/linear/gemv_q4_reduce.wgsl"
#include "ops/linear/gemv_q4_xfix.wgsl"

override RPT : u32 = 8u;  // rows per invocation, 1..8
override TK : u32 = 32u;  // k lanes
override TR : u32 = 8u;   // row lanes; RPT <= TK, TK % RPT == 0
override XB : u32 = 64u;  // K / 32: blocks of x

override ROWS_PER_WG : u32 = TR * RPT;  // read by the host for the grid

var<workgroup> part : array<f32, TR * RPT * (TK + 1u)>;  // reduction buffer (gemv_q4_reduce.wgsl)
var<workgroup> xq : array<vec4<u32>, 6u * XB>;  // byte planes of q, [6][XB]
var<workgroup> xsc : array<f32, XB>;            // 2^-e per block (NaN: the block holds an inf or NaN)
var<workgroup> xs8 : array<vec4<i32>, XB>;      // 8 * sum of q per word (component c: word c of the block)
var<workgroup> xe : array<vec4<u32>, XB>;       // staging: largest biased exponent of |x| per word

// Converts row m_row of x (as gemv_x4 reads it: the fused RMSNorm applied, gemv_q4_fuse.wgsl) into workgroup memory (see the header), one invocation per word (8 k) in two
// passes: the largest exponent of each word, then, after a barrier, the block's scale and the word's planes.
fn stage_x(lid : u32) {
  for (var u = lid; u < XB * 4u; u += TK * TR) {
    let a = bitcast<vec4<u32>>(gemv_x4(2u * u)) & vec4<u32>(0x7FFFFFFFu);
    let b = bitcast<vec4<u32>>(gemv_x4(2u * u + 1u)) & vec4<u32>(0x7FFFFFFFu);
    let mx = max(a, b);
    xe[u / 4u][u % 4u] = max(max(mx.x, mx.y), max(mx.z, mx.w)) >> 23u;
  }
  workgroupBarrier();
  for (var u = lid; u < XB * 4u; u += TK * TR) {
    let blk = u / 4u;
    let c = u % 4u;
    let ev = xe[blk];
    let E = max(max(ev.x, ev.y), max(ev.z, ev.w));
    // |x| < 2^(E - 126) in the block (subnormals counted as E = 1), so 2^e with e = 148 - E maps the largest
    // into [2^21, 2^22). Both 2^e and 2^-e are built from their exponent bits (e + 127 in 20..253).
    let e = min(148 - i32(max(E, 1u)), 126);
    let m = bitcast<f32>(u32(e + 127) << 23u);
    let a = round_q(gemv_x4(2u * u), m);        // k = 8c .. 8c+3 of the block
    let b4 = round_q(gemv_x4(2u * u + 1u), m);  // k = 8c+4 .. 8c+7
    let s = a + b4;
    xs8[blk][c] = 8 * (s.x + s.y + s.z + s.w);
    let q2 = array<vec4<i32>, 2>(vec4<i32>(a.x, a.z, b4.x, b4.z), vec4<i32>(a.y, a.w, b4.y, b4.w));
    for (var par = 0u; par < 2u; par++) {
      let q = q2[par];
      let lo = low_byte(q);
      let r = (q - lo) >> vec4<u32>(8u);
      let mid = low_byte(r);
      let hi = (r - mid) >> vec4<u32>(8u);
      xq[par * XB + blk][c] = pack4xI8(lo);
      xq[(2u + par) * XB + blk][c] = pack4xI8(mid);
      xq[(4u + par) * XB + blk][c] = pack4xI8(hi);
    }
    if (c == 0u) {
      // 2^-e; a quiet NaN when the block holds an inf or NaN (E = 255; built at run time: WGSL constants
      // cannot be NaN).
      xsc[blk] = bitcast<f32>(select(u32(127 - e) << 23u, 0x7FC00000u | (E << 23u), E == 255u));
    }
  }
  workgroupBarrier();
}

// sum over the 32 codes of qv of (code - 8) * q, with xp the block's 6 plane vectors and sum8 = 8 * sum q.
fn q4_dot32_i8(qv : vec4<u32>, xp : array<vec4<u32>, 6>, sum8 : i32) -> i32 {
  var d0 = 0;
  var d1 = 0;
  var d2 = 0;
  for (var c = 0u; c < 4u; c++) {
    let ev = qv[c] & 0x0F0F0F0Fu;          // codes of k = 8c + 0, 2, 4, 6
    let od = (qv[c] >> 4u) & 0x0F0F0F0Fu;  // k = 8c + 1, 3, 5, 7
    d0 = d0 + dot4I8Packed(ev, xp[0][c]) + dot4I8Packed(od, xp[1][c]);
    d1 = d1 + dot4I8Packed(ev, xp[2][c]) + dot4I8Packed(od, xp[3][c]);
    d2 = d2 + dot4I8Packed(ev, xp[4][c]) + dot4I8Packed(od, xp[5][c]);
  }
  return d2 * 65536 + d1 * 256 + d0 - sum8;
}

@compute @workgroup_size(TK * TR)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  m_row = wid.z;
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  let t = lid % TK;
  let groups = p.K / p.group;  // scales per row
  let row_idx = gemv_rows(wg, lid);
  gemv_norm_begin(lid);
  stage_x(lid);
  var acc : array<f32, 8>;
  for (var v = t; v < XB; v += TK) {
    var xp : array<vec4<u32>, 6>;
    for (var j = 0u; j < 6u; j++) {
      xp[j] = xq[j * XB + v];
    }
    let sx = xsc[v];
    let s8 = xs8[v];
    let sum8 = s8.x + s8.y + s8.z + s8.w;
    let g = (v * 32u) / p.group;
    for (var i = 0u; i < RPT; i++) {
      let n = row_idx[i];
      // 2^-e last: scale * 2^-e alone could fall below f32's normal range (flushed to 0 on GPUs that flush
      // subnormals) for tiny x, where the product with the block sum does not.
      acc[i] += (f32(q4_dot32_i8(qw[n * XB + v], xp, sum8)) * q4gsw_scale(n * groups + g)) * sx;
    }
  }
  gemv_reduce_store(lid, wg, acc);
}
