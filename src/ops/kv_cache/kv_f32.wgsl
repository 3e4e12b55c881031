// The KV cache's element type: f32 (kv_f16.wgsl is the other). Every kernel that reads or writes a KV cache is
// written against these names and gets one of the two files ahead of its source (KernelSpec::prelude, chosen by
// the cache tensor's dtype: kv_cache.h kv_prelude). A kernel declares a cache binding as
//   array<KvVec4>  4 elements per entry (vec4 readers; element 4i..4i+3 at entry i), read with kv_vec4;
//   array<KvWord>  KV_PER_WORD elements per entry (scalar readers), element i = kv_elem(c[i / KV_PER_WORD], i % KV_PER_WORD);
// and writes entry i of an array<KvWord> as kv_word(element i * KV_PER_WORD, the next element) (f32 keeps the first).
// f16 caches need an even number of elements per cache row (the host checks D % 4 == 0), so a word never spans
// two rows.
alias KvVec4 = vec4<f32>;
alias KvWord = f32;
const KV_PER_WORD : u32 = 1u;

fn kv_vec4(w : KvVec4) -> vec4<f32> {
  return w;
}

fn kv_elem(w : KvWord, j : u32) -> f32 {
  return w;
}

fn kv_word(a : f32, b : f32) -> KvWord {
  return a;
}
