// NaN tests and values by bit pattern: WGSL lets compilers assume floats are never NaN, so `v != v` may be
// folded to false, and a NaN literal is a shader-creation error. `salt` must be a run-time value that is 0
// (e.g. an index & 0u), so the NaN is not a constant expression.
fn is_nan(v : f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn nan_f32(salt : u32) -> f32 {
  return bitcast<f32>(0x7fc00000u | salt);
}
