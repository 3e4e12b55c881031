// Helpers of the block fixed point of x shared by the int8 q4 GEMV kernels (gemv_q4_i8.wgsl, gemv_q4_s8.wgsl):
// q = round(x * 2^e) split into signed byte planes for dot4I8Packed (the kernels' headers give the arithmetic).

// round(v * m) for |v * m| < 2^22 + 1/2: adding 1.5 * 2^23 puts the integer in the low mantissa bits (the add
// rounds to nearest even); v * m is exact (m a power of two).
fn round_q(v : vec4<f32>, m : f32) -> vec4<i32> {
  return bitcast<vec4<i32>>(bitcast<vec4<u32>>(v * m + 12582912.0) - vec4<u32>(0x4B400000u));
}

// Low signed byte of each component (the rest goes to the next plane).
fn low_byte(q : vec4<i32>) -> vec4<i32> {
  return (q << vec4<u32>(24u)) >> vec4<u32>(24u);
}
