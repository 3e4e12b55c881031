// The KV cache's element type: IEEE binary16, two per u32 word, the lower-indexed element in the low half (the
// layout of a WebGPU f16 array, without needing shader-f16: pack2x16float / unpack2x16float are core WGSL). The
// interface is kv_f32.wgsl's. Values beyond the f16 range, +-inf included, are stored as +-65504
// (pack2x16float's result is indeterminate there, as it is for NaN, which is passed through as it is). An f32 between two f16 values becomes one of the two (WGSL leaves which to
// the adapter): a relative error below 2^-10.
alias KvVec4 = vec2<u32>;
alias KvWord = u32;
const KV_PER_WORD : u32 = 2u;
const KV_F16_MAX : f32 = 65504.0;

fn kv_vec4(w : KvVec4) -> vec4<f32> {
  return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y));
}

fn kv_elem(w : KvWord, j : u32) -> f32 {
  return unpack2x16float(w)[j];
}

fn kv_word(a : f32, b : f32) -> KvWord {
  let v = vec2<f32>(a, b);
  return pack2x16float(select(clamp(v, vec2<f32>(-KV_F16_MAX), vec2<f32>(KV_F16_MAX)), v, v != v));
}
