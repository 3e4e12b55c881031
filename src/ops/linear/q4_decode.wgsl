// q4gsw decode helpers shared by the GEMV kernels (layout: ops/linear/q4gsw.h).
//
// A u32 word holds 8 codes, k = 8w + j in bits 4j .. 4j+3. q4_lo(w) gives (code_j - 8) for j = 0..3 as f32,
// exactly, without integer->float conversions (which run at a quarter rate on NVIDIA GPUs): nibble j is
// masked in place and OR-ed with the exponent of 2^(23 - 4j), so the float is 2^(23 - 4j) + code_j (the
// nibble's lowest bit is the mantissa's unit place); subtracting 2^(23 - 4j) + 8 leaves code_j - 8. All
// values are integers below 2^24, so every step is exact. q4_lo(w >> 16) gives j = 4..7.
// One word therefore costs 1 shift + 8 AND/OR (one LOP3 each on NVIDIA) + 8 subtractions, and its 8 values
// pair with two consecutive vec4<f32> of x (x[8w .. 8w+3], x[8w+4 .. 8w+7]).
const Q4_MASK = vec4<u32>(0xFu, 0xF0u, 0xF00u, 0xF000u);
const Q4_EXP = vec4<u32>(0x4B000000u, 0x49000000u, 0x47000000u, 0x45000000u);  // 2^23, 2^19, 2^15, 2^11
const Q4_OFF = vec4<f32>(8388616.0, 524296.0, 32776.0, 2056.0);                // 2^(23-4j) + 8

fn q4_lo(w : u32) -> vec4<f32> {
  return bitcast<vec4<f32>>((vec4<u32>(w) & Q4_MASK) | Q4_EXP) - Q4_OFF;
}

// sum over the 32 codes of q (one vec4<u32> = 32 consecutive k) of (code - 8) * x; xv = the 8 vec4<f32> of x
// for those k.
fn q4_dot32(q : vec4<u32>, xv : array<vec4<f32>, 8>) -> f32 {
  var s = dot(q4_lo(q.x), xv[0]) + dot(q4_lo(q.x >> 16u), xv[1]);
  s += dot(q4_lo(q.y), xv[2]) + dot(q4_lo(q.y >> 16u), xv[3]);
  s += dot(q4_lo(q.z), xv[4]) + dot(q4_lo(q.z >> 16u), xv[5]);
  s += dot(q4_lo(q.w), xv[6]) + dot(q4_lo(q.w >> 16u), xv[7]);
  return s;
}
