// The load and store hooks of the workgroup-memory q4 GEMV kernels (gemv_q4.wgsl, gemv_q4_i8.wgsl), which make
// them the fused decode kernels of wgrt.linear_q4gsw_fused (linear_fused.cpp):
//   NORM 1: x is RMS-normalized inline, x'[k] = x[k] / sqrt(mean_k x[k]^2 + eps) * nw[k]: every workgroup
//     recomputes the sum of squares of its row of x (K floats, cheap beside its rows of weights) in gemv_norm_begin,
//     and the kernel reads x through gemv_x4 (replaces an rms_norm dispatch before the GEMV);
//   EPI (the store hook gemv_store, called by every invocation with its row slot's sum):
//     0: out[n] = s (+ bias[n]);
//     1: residual add, out[n] = res[n] + s (+ bias[n]) (o-proj, down-proj: replaces an add);
//     2 / 3: gated linear unit over W = [gate; up] (N = 2H rows): out[j] = act(g_j) * u_j for j < H, act silu (2)
//       or gelu-tanh (3); the workgroup's first half of row slots holds gate rows, the second half the up rows of
//       the same j (gemv_row), so one dispatch produces act(gate) * up (replaces a swiglu dispatch). Needs the
//       whole weight in one binding (n_base 0) and an even TR * RPT.
// The includer declares x : array<vec4<f32>>, nw : array<vec4<f32>>, res, bias, out, p (gemv_params.wgsl),
// m_row, the overrides TK, TR, RPT, and part : array<f32, >= TK * TR> (reused here for the norm's reduction).
// This is a generic store hook: another GEMV kernel gets the same fusions by calling gemv_row / gemv_x4 /
// gemv_store instead of indexing rows, x and out itself.
#include "ops/linear/gemv_fuse_norm.wgsl"

fn glu(g : f32, u : f32) -> f32 {
  if (EPI == 3u) {
    // 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))), as ops/elementwise/swiglu.wgsl.
    let t = 0.7978845608028654 * (g + 0.044715 * g * g * g);
    return 0.5 * g * (1.0 + tanh(clamp(t, -15.0, 15.0))) * u;
  }
  let e = exp(-abs(g));
  let sg = select(e / (1.0 + e), 1.0 / (1.0 + e), g >= 0.0);
  return g * sg * u;
}

// Stores row slot `lid`'s sum s (lid < TR * RPT; other invocations pass anything). Called by every invocation
// (uniform control flow: EPI 2/3 synchronize the workgroup).
fn gemv_store(lid : u32, wg : u32, s : f32) {
  let rows = TR * RPT;
  if (EPI < 2u) {
    if (lid < rows) {
      let n = wg * rows + lid;
      if (n < p.N) {
        var v = s;
        if (p.has_bias != 0u) {
          v += bias[p.n_base + n];
        }
        let o = m_row * p.out_stride + p.n_base + n;
        if (EPI == 1u) {
          v += res[o];
        }
        out[o] = v;
      }
    }
    return;
  }
  let half = rows / 2u;
  let H = p.N / 2u;
  workgroupBarrier();
  if (lid < rows) {
    var v = s;
    if (p.has_bias != 0u) {
      v += bias[gemv_row(wg, lid)];
    }
    part[lid] = v;
  }
  workgroupBarrier();
  if (lid < half) {
    let j = wg * half + lid;
    if (j < H) {
      out[m_row * p.out_stride + j] = glu(part[lid], part[lid + half]);
    }
  }
}
