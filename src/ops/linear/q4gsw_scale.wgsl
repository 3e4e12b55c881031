// q4gsw group scales (layout: ops/linear/q4gsw.h), read through one function by every kernel that reads q4gsw
// weights: the GEMV kernels (gemv_q4*.wgsl), the GEMM B loaders (gemm.wgsl, gemm_big.wgsl, gemm_cpu.wgsl), the
// embedding lookup, and any later q4gsw kernel (an int8 prefill GEMM should call it too, not index scales itself).
// The includer declares `scales : array<u32>` (read-only storage). q4gsw_scale(i) is the scale of group i of the
// bound slice, i = row * (K / G) + k / G:
//   SCALE_F16 1 (what the model loaders upload): IEEE f16 scales packed two per word, scale i in the low half of
//     word i / 2 when i is even, the high half when odd (unpack2x16float: no shader-f16 needed);
//   SCALE_F16 0: f32 scales (the et_vk op's form with f32 scales, tests and host-quantized weights).
override SCALE_F16 : u32 = 0u;

fn q4gsw_scale(i : u32) -> f32 {
  if (SCALE_F16 != 0u) {
    return unpack2x16float(scales[i >> 1u])[i & 1u];
  }
  return bitcast<f32>(scales[i]);
}
