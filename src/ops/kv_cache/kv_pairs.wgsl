// The cache writes of the RoPE writers (ops/rope/rope_qkv.wgsl, ops/linear/gemv_kq_rope.wgsl): an invocation holds
// KV_PER_WORD rotation pairs (a[g], b[g]) of one head, pair g at elements ia[g] and ia[g] + pb of the head row
// starting at element dst (pb = D/2 for rotate-half pairs, 1 for interleaved ones; pair 1 is the next pair:
// ia[1] = ia[0] + 1 rotate-half, ia[0] + 2 interleaved). They fill two whole cache words at elements e0, e1:
// f32 (one pair) a at ia[0] and b at ia[0] + pb; f16 rotate-half (a0, a1) at ia[0] and (b0, b1) at ia[0] + D/2,
// f16 interleaved (a0, b0) at ia[0] and (a1, b1) at ia[1]. The includer has the prelude kv_f32.wgsl or kv_f16.wgsl.
struct KvWords {
  e0 : u32,  // element index of word 0 (a multiple of KV_PER_WORD)
  e1 : u32,
  w0 : KvWord,
  w1 : KvWord,
}

fn kv_pair_words(dst : u32, ia : array<u32, 2>, pb : u32, rotate_half : bool, a : array<f32, 2>, b : array<f32, 2>) -> KvWords {
  var r : KvWords;
  r.e0 = dst + ia[0];
  r.e1 = dst + ia[0] + pb;
  r.w0 = kv_word(a[0], 0.0);
  r.w1 = kv_word(b[0], 0.0);
  if (KV_PER_WORD == 2u) {
    if (rotate_half) {
      r.w0 = kv_word(a[0], a[1]);
      r.w1 = kv_word(b[0], b[1]);
    } else {
      r.e1 = dst + ia[1];
      r.w0 = kv_word(a[0], b[0]);
      r.w1 = kv_word(a[1], b[1]);
    }
  }
  return r;
}

// The rotation of one pair: (a cos - b sin, b cos + a sin).
fn rope_rotate(a : f32, b : f32, c : f32, sn : f32) -> vec2<f32> {
  return vec2<f32>(a * c - b * sn, b * c + a * sn);
}
