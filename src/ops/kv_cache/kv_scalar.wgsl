// Element i of the KV caches for the scalar readers (sdpa_flash.wgsl, sdpa_common.wgsl): the includer declares
// k_cache and v_cache as array<KvWord> (the prelude kv_f32.wgsl or kv_f16.wgsl).
fn k_at(i : u32) -> f32 {
  return kv_elem(k_cache[i / KV_PER_WORD], i % KV_PER_WORD);
}

fn v_at(i : u32) -> f32 {
  return kv_elem(v_cache[i / KV_PER_WORD], i % KV_PER_WORD);
}
