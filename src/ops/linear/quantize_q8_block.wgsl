// One 32-k block of x to int8 as quantize_q8.wgsl defines it (shared with gemv_kq_i8.wgsl's workgroup staging, so
// both round identically): d = max |v| / 127, q[k] = round(v[k] * (127 / max |v|)) clamped to -127..127 (all 0
// where the block is 0), packed 4 per u32 in `order` 0 (the q4gsw nibble order: u32 2w + parity holds
// k = 8w + parity + {0, 2, 4, 6}) or 1 (natural: u32 j holds k = 4j .. 4j + 3); s = (d, d * sum q), d NaN where
// the block holds an inf or NaN.
struct Q8Block {
  words : array<u32, 8>,
  s : vec2<f32>,
}

fn q8_block(v : array<vec4<f32>, 8>, order : u32) -> Q8Block {
  var amax = vec4<f32>(0.0);
  var finite = true;
  for (var i = 0u; i < 8u; i++) {
    amax = max(amax, abs(v[i]));
    // inf or NaN: the exponent bits all set
    finite = finite && all((bitcast<vec4<u32>>(v[i]) & vec4<u32>(0x7F800000u)) != vec4<u32>(0x7F800000u));
  }
  let m = max(max(amax.x, amax.y), max(amax.z, amax.w));
  let d = m / 127.0;
  let inv = select(0.0, 127.0 / m, m > 0.0);
  var sum = 0;
  var r : Q8Block;
  for (var w = 0u; w < 4u; w++) {
    let qa = vec4<i32>(clamp(round(v[2u * w] * inv), vec4<f32>(-127.0), vec4<f32>(127.0)));
    let qb = vec4<i32>(clamp(round(v[2u * w + 1u] * inv), vec4<f32>(-127.0), vec4<f32>(127.0)));
    sum += qa.x + qa.y + qa.z + qa.w + qb.x + qb.y + qb.z + qb.w;
    if (order == 1u) {
      r.words[2u * w] = pack4xI8(qa);
      r.words[2u * w + 1u] = pack4xI8(qb);
    } else {
      r.words[2u * w] = pack4xI8(vec4<i32>(qa.x, qa.z, qb.x, qb.z));
      r.words[2u * w + 1u] = pack4xI8(vec4<i32>(qa.y, qa.w, qb.y, qb.w));
    }
  }
  // A NaN built at run time (WGSL constants cannot be NaN).
  let dd = select(bitcast<f32>(0x7FC00000u | (bitcast<u32>(m) & 1u)), d, finite);
  r.s = vec2<f32>(dd, dd * f32(sum));
  return r;
}
