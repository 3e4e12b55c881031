// KV-cache write: cache[b, pos + s, h, d] = value[b, s, h, d]. value [B, S, H, D], cache [B, C_max, H, D].
// One invocation per cache word (KV_PER_WORD elements: the prelude kv_f32.wgsl or kv_f16.wgsl; f16 needs an even
// row H*D, which the host checks); the host guarantees pos + S <= C_max.
#include "ops/common/index.wgsl"
#include "ops/kv_cache/cache_common.wgsl"

@group(0) @binding(0) var<storage, read> value : array<f32>;
@group(0) @binding(1) var<storage, read_write> cache : array<KvWord>;
@group(0) @binding(2) var<uniform> p : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = (linear_workgroup(wid, nwg) * 256u + lid) * KV_PER_WORD;
  if (i < p.n) {
    cache[cache_index(i, p) / KV_PER_WORD] = kv_word(value[i], value[min(i + 1u, p.n - 1u)]);
  }
}
