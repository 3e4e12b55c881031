// K and V cache writes in one dispatch: grid layer z = 0 writes k_value into k_cache, z = 1 v_value into v_cache
// (same shapes; see update_cache.wgsl). One invocation per cache word (KV_PER_WORD elements: the prelude
// kv_f32.wgsl or kv_f16.wgsl; f16 needs an even row H*D, which the host checks). The host guarantees
// pos + S <= C_max.
#include "ops/common/index.wgsl"
#include "ops/kv_cache/cache_common.wgsl"

@group(0) @binding(0) var<storage, read> k_value : array<f32>;
@group(0) @binding(1) var<storage, read> v_value : array<f32>;
@group(0) @binding(2) var<storage, read_write> k_cache : array<KvWord>;
@group(0) @binding(3) var<storage, read_write> v_cache : array<KvWord>;
@group(0) @binding(4) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = (linear_workgroup(wid, nwg) * 256u + lid) * KV_PER_WORD;
  if (i >= p.n) {
    return;
  }
  let last = min(i + 1u, p.n - 1u);  // the word's second element (f16; a row is even, so i + 1 < p.n there)
  let dst = cache_index(i, p) / KV_PER_WORD;
  if (wid.z == 0u) {
    k_cache[dst] = kv_word(k_value[i], k_value[last]);
  } else {
    v_cache[dst] = kv_word(v_value[i], v_value[last]);
  }
}
