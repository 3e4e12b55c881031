// Shared by the et_vk.sdpa kernels: the additive mask with 4-D broadcast strides and -inf handling.
// Masked (-inf) scores are carried as LOWEST so that no inf/NaN arithmetic is ever needed.
const LOWEST : f32 = -3.4e38;

fn is_neg_inf(v : f32) -> bool {
  return bitcast<u32>(v) == 0xff800000u;
}
