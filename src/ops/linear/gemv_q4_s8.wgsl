enable subgroups;
diagnostic(off, subgroup_uniformity);
// q4gsw GEMV (decode, M <= 8 rows of x as grid layers), bandwidth route: x staged once per workgroup in byte planes
// for dot4I8Packed, subgroup tasks streaming rows, subgroup reductions. Same contract and fusion hooks as
// gemv_q4_i8.wgsl (out[n_base + n] = sum_k x'[k] * W[n][k] (+ bias / residual / GLU, gemv_q4_fuse.wgsl), W in the
// q4gsw layout of ops/linear/q4gsw.h bound from row 0 of this dispatch's slice). Needs the `subgroups` feature;
// devices without it run gemv_q4_i8.wgsl (linear.cpp q4_gemv_spec).
//
// Built for memory bandwidth (the GEMV reads every weight byte once; the H200 wants ~40 KiB in flight per SM):
// - x is staged once per workgroup, one invocation per block of 32 k, as q[k] with one f32 d per block:
//   PLANES 3: q = round(x * 2^e), the power of two putting the block's largest |x| in [2^21, 2^22), split into
//     three signed byte planes; exactly gemv_q4_i8.wgsl's arithmetic and error bound (2^-22 of max_block |x| per
//     x; its header), 24 dot4I8Packed per 32 weights, 104 bytes of workgroup memory per 32 k;
//   PLANES 1: q = round(x * 127 / max_block |x|), d = max_block |x| / 127 (llama.cpp's int8 activations): 8
//     dot4I8Packed per 32 weights, 40 bytes per 32 k; |x[k] - q[k] d| <= d / 2, so a row is off by at most
//     sum_blocks (max_block |x| / 254) * sum_block |W[n][k]| beyond f32 rounding.
//   (tests/kernels/linear_s8_test.cpp checks both bounds.) A block holding an inf or NaN gets d = NaN (its rows'
//   outputs are NaN).
// - a subgroup owns RPT rows (a task); its lanes stream vec4<u32> (32 codes, one scale since G >= 32) of each row
//   at v = lane + lanes * (U * it + u): every lane issues RPT * U independent 16-byte loads per step, and the
//   lanes of the subgroup read lanes * 16 contiguous bytes of a row per load. The first step's weights are
//   loaded before x is staged, so their latency hides behind the staging.
// - the fused RMSNorm's sum of squares is a subgroupAdd per subgroup and one barrier (gemv_norm_begin of
//   gemv_q4_fuse.wgsl takes a tree of barriers);
// - a row's lane partials are summed with subgroupAdd; the RPT * TR row sums then go through workgroup memory
//   to the store hook gemv_store (one barrier), which also pairs gate and up rows for the GLU epilogue.
// Tasks (TR per workgroup) go to subgroups by a workgroup atomic counter (no assumption on the subgroup size or
// layout: a lane's rank and the lane count come from subgroupExclusiveAdd / subgroupAdd, as in gemv_q4_sg.wgsl).
#include "ops/common/index.wgsl"
#include "ops/linear/gemv_q4_bindings.wgsl"
#include "ops/linear/gemv_q4_fuse.wgsl"
#include "ops/linear/gemv_q4_xfix.wgsl"
#include "ops/common/subgroup_ids.wgsl"

override RPT : u32 = 4u;  // rows per task, 1..8
override U : u32 = 2u;    // vec4 loads per row per lane per step, 1..8; RPT * U <= 16
override TR : u32 = 8u;   // tasks per workgroup (ROWS_PER_WG = TR * RPT)
override TK : u32 = 32u;  // invocations per task's share of the workgroup: workgroup size TK * TR
override XB : u32 = 64u;  // K / 32: blocks of x
override PLANES : u32 = 3u;  // byte planes of x: 3 (22-bit blocks) or 1 (int8)

override ROWS_PER_WG : u32 = TR * RPT;  // read by the host for the grid

var<workgroup> part : array<f32, TK * TR>;     // subgroup sums of squares (NORM), then the row sums by slot
var<workgroup> xq : array<vec4<u32>, 2u * PLANES * XB>;  // byte planes of q, [2 * plane + parity][XB]
var<workgroup> xd : array<f32, XB>;             // d per block (NaN: the block holds an inf or NaN)
var<workgroup> xs8 : array<i32, XB>;            // 8 * sum of q per block

// Quantizes block b of x' (32 k) into xq / xd / xs8 (see the header).
fn stage_block(b : u32) {
  var v : array<vec4<f32>, 8>;
  var amax = 0.0;
  var emax = 0u;  // largest biased exponent of |x| (255: an inf or NaN; max() may drop a NaN, the bits do not)
  for (var i = 0u; i < 8u; i++) {
    v[i] = gemv_x4(8u * b + i);
    let a = abs(v[i]);
    amax = max(amax, max(max(a.x, a.y), max(a.z, a.w)));
    let e = bitcast<vec4<u32>>(a) >> vec4<u32>(23u);
    emax = max(emax, max(max(e.x, e.y), max(e.z, e.w)));
  }
  // PLANES 1: q = round(x * 127 / amax), d = amax / 127 (the multiplier capped so that a block of subnormals
  // rounds to 0 instead of overflowing). PLANES 3: q = round(x * 2^e), 2^e putting amax in [2^21, 2^22) as in
  // gemv_q4_i8.wgsl (e capped at 126), d = 2^-e.
  let e = min(148 - i32(max(emax, 1u)), 126);
  let m = select(select(0.0, min(127.0 / amax, 8.5e37), amax > 0.0), bitcast<f32>(u32(e + 127) << 23u), PLANES == 3u);
  var s = 0;
  for (var c = 0u; c < 4u; c++) {
    var a : vec4<i32>;
    var d : vec4<i32>;
    if (PLANES == 3u) {
      a = round_q(v[2u * c], m);       // k = 8c .. 8c+3
      d = round_q(v[2u * c + 1u], m);  // k = 8c+4 .. 8c+7
    } else {
      a = vec4<i32>(round(v[2u * c] * m));
      d = vec4<i32>(round(v[2u * c + 1u] * m));
    }
    let t = a + d;
    s += t.x + t.y + t.z + t.w;
    var q2 = array<vec4<i32>, 2>(vec4<i32>(a.x, a.z, d.x, d.z), vec4<i32>(a.y, a.w, d.y, d.w));
    for (var par = 0u; par < 2u; par++) {
      var q = q2[par];
      for (var pl = 0u; pl < PLANES; pl++) {
        let lo = low_byte(q);
        xq[(2u * pl + par) * XB + b][c] = pack4xI8(lo);
        q = (q - lo) >> vec4<u32>(8u);
      }
    }
  }
  xs8[b] = 8 * s;
  // d; a quiet NaN when the block holds an inf or NaN (built at run time: WGSL constants cannot be NaN).
  let dv = select(amax / 127.0, bitcast<f32>(u32(127 - e) << 23u), PLANES == 3u);
  xd[b] = select(dv, bitcast<f32>(0x7FC00000u | (emax << 23u)), emax == 255u);
}

// sum over the 32 codes of qv of (code - 8) * q for a block of the staged x given as its planes xp (vec4 j =
// 2 * plane + parity) and s8 = 8 * sum q: per plane 8 dot4I8Packed, the planes combined as
// 2^16 D_2 + 2^8 D_1 + D_0 (exact in i32 up to wrapping, which the subtraction undoes).
fn dot32(qv : vec4<u32>, xp : array<vec4<u32>, 6>, s8 : i32) -> i32 {
  var ev : vec4<u32>;
  var od : vec4<u32>;
  for (var c = 0u; c < 4u; c++) {
    ev[c] = qv[c] & 0x0F0F0F0Fu;          // codes of k = 8c + 0, 2, 4, 6
    od[c] = (qv[c] >> 4u) & 0x0F0F0F0Fu;  // k = 8c + 1, 3, 5, 7
  }
  var r = 0;
  for (var pl = PLANES; pl > 0u; pl--) {
    var d = 0;
    for (var c = 0u; c < 4u; c++) {
      d += dot4I8Packed(ev[c], xp[2u * pl - 2u][c]) + dot4I8Packed(od[c], xp[2u * pl - 1u][c]);
    }
    r = r * 256 + d;
  }
  return r - s8;
}

@compute @workgroup_size(TK * TR)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  m_row = wid.z;
  let wg = linear_workgroup(wid, nwg);
  if (wg >= p.nwg) {
    return;
  }
  let ids = subgroup_ids();
  let lane = ids.lane;
  let lanes = ids.lanes;
  let sgi = ids.sgi;
  let groups = p.K / p.group;  // scales per row

  // The first task's first step of weights, before x is staged.
  var wq : array<vec4<u32>, 16>;  // [i * U + u]
  var row_idx : array<u32, 8>;
  for (var i = 0u; i < RPT; i++) {
    row_idx[i] = gemv_row(wg, sgi + TR * i);
    for (var u = 0u; u < U; u++) {
      let v = lane + lanes * u;
      if (sgi < TR && v < XB) {
        wq[i * U + u] = qw[row_idx[i] * XB + v];
      }
    }
  }

  if (NORM != 0u) {
    // x_inv of gemv_q4_fuse.wgsl's RMSNorm with one barrier: subgroup sums of squares, then their total.
    var ss = 0.0;
    for (var i = lid; i < p.K / 4u; i += TK * TR) {
      let v = x[m_row * (p.K / 4u) + i];
      ss += dot(v, v);
    }
    ss = subgroupAdd(ss);
    if (lane == 0u) {
      part[sgi] = ss;
    }
    workgroupBarrier();
    var tot = 0.0;
    let n_sg = atomicLoad(&sg_next);
    for (var j = 0u; j < n_sg; j++) {
      tot += part[j];
    }
    x_inv = 1.0 / sqrt(tot / f32(p.K) + p.eps);
  }
  for (var b = lid; b < XB; b += TK * TR) {
    stage_block(b);
  }
  workgroupBarrier();  // (part is next written after this barrier, by the row sums)
  let nsg = atomicLoad(&sg_next);

  var loaded = true;
  for (var task = sgi; task < TR; task += nsg) {
    for (var i = 0u; i < RPT; i++) {
      row_idx[i] = gemv_row(wg, task + TR * i);
    }
    var acc : array<f32, 8>;
    for (var i = 0u; i < 8u; i++) {
      acc[i] = 0.0;
    }
    for (var v0 = lane; v0 < XB; v0 += lanes * U) {
      if (!loaded) {
        for (var i = 0u; i < RPT; i++) {
          for (var u = 0u; u < U; u++) {
            let v = v0 + lanes * u;
            if (v < XB) {
              wq[i * U + u] = qw[row_idx[i] * XB + v];
            }
          }
        }
      }
      loaded = false;
      for (var u = 0u; u < U; u++) {
        let v = v0 + lanes * u;
        if (v < XB) {
          // The block's x, read once for the RPT rows.
          var xp : array<vec4<u32>, 6>;
          for (var j = 0u; j < 2u * PLANES; j++) {
            xp[j] = xq[j * XB + v];
          }
          let s8 = xs8[v];
          let d = xd[v];
          let g = (v * 32u) / p.group;
          for (var i = 0u; i < RPT; i++) {
            // d last: scale * d alone could fall below f32's normal range for tiny x (see gemv_q4_i8.wgsl).
            acc[i] += (f32(dot32(wq[i * U + u], xp, s8)) * q4gsw_scale(row_idx[i] * groups + g)) * d;
          }
        }
      }
    }
    loaded = false;
    for (var i = 0u; i < RPT; i++) {
      let s = subgroupAdd(acc[i]);
      if (lane == 0u) {
        part[task + TR * i] = s;
      }
    }
  }
  workgroupBarrier();
  var s = 0.0;
  if (lid < TR * RPT) {
    s = part[lid];
  }
  gemv_store(lid, wg, s);
}
