// The row map and the inline RMSNorm of the fused GEMV kernels (included by gemv_q4_fuse.wgsl, which adds the
// store hook, and by gemv_kq_rope.wgsl, which stores through its own): NORM, EPI, x_inv, gemv_row, gemv_norm_begin,
// gemv_x4 as gemv_q4_fuse.wgsl describes them; EPI 4 (gemv_kq_rope.wgsl, Hugging Face rotate-half RoPE) pairs
// element i < RHALF of a head with element i + RHALF in one workgroup: pairs are numbered over all heads (head
// pair / RHALF, element pair % RHALF), the workgroup's first half of row slots takes its run of pairs' first
// elements, the second half their partners (a run may cross heads); EPI 5 (interleaved pairs) keeps the plain map,
// whose slots 2j and 2j + 1 are a pair.
// The includer declares x : array<vec4<f32>>, nw : array<vec4<f32>>, p (N, K, eps), the overrides TK, TR, RPT,
// m_row and part : array<f32, >= TK * TR>.
override NORM : u32 = 0u;
override EPI : u32 = 0u;
override RHALF : u32 = 1u;  // EPI 4: half the head dim

var<private> x_inv : f32;  // NORM: 1 / rms of row m_row of x

// Row of W held by row slot s (0 .. TR * RPT - 1) of workgroup wg (clamped: slots past the end compute a
// duplicate that is never stored).
fn gemv_row(wg : u32, s : u32) -> u32 {
  let rows = TR * RPT;
  if (EPI == 4u) {
    let half = rows / 2u;
    let pair = wg * half + s % half;  // pair index over all heads: head pair / RHALF, element pair % RHALF
    return min((pair / RHALF) * 2u * RHALF + pair % RHALF + select(0u, RHALF, s >= half), p.N - 1u);
  }
  if (EPI == 2u || EPI == 3u) {
    let half = rows / 2u;
    let H = p.N / 2u;
    return min(wg * half + s % half, H - 1u) + select(0u, H, s >= half);
  }
  return min(wg * rows + s, p.N - 1u);
}

// NORM: computes x_inv for row m_row (all invocations, uniform control flow; ends with a barrier).
fn gemv_norm_begin(lid : u32) {
  if (NORM == 0u) {
    return;
  }
  let WGS = TK * TR;
  let nv = p.K / 4u;
  var s = 0.0;
  for (var i = lid; i < nv; i += WGS) {
    let v = x[m_row * nv + i];
    s += dot(v, v);
  }
  part[lid] = s;
  workgroupBarrier();
  // Fold to a power of two, then a tree.
  let P = 1u << (31u - countLeadingZeros(WGS));
  if (lid < WGS - P) {
    part[lid] += part[lid + P];
  }
  workgroupBarrier();
  for (var h = P / 2u; h > 0u; h >>= 1u) {
    if (lid < h) {
      part[lid] += part[lid + h];
    }
    workgroupBarrier();
  }
  x_inv = 1.0 / sqrt(part[0] / f32(p.K) + p.eps);
  workgroupBarrier();
}

// vec4 i (k = 4i .. 4i+3) of row m_row of x as the GEMV multiplies it.
fn gemv_x4(i : u32) -> vec4<f32> {
  let v = x[m_row * (p.K / 4u) + i];
  if (NORM != 0u) {
    return v * x_inv * nw[i];
  }
  return v;
}

