// wgrt.sdpa_batched, cache write: invocation i of grid layer z (0: K, 1: V) copies the KV_PER_WORD elements from
// i * KV_PER_WORD of the value rows [R, Hkv*D] to k_cache/v_cache[slots[r], pos[r], :, :] (one cache word; the
// prelude kv_f32.wgsl or kv_f16.wgsl, whose rows Hkv*D are even).
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> k_value : array<f32>;
@group(0) @binding(1) var<storage, read> v_value : array<f32>;
@group(0) @binding(2) var<storage, read> slots : array<i32>;
@group(0) @binding(3) var<storage, read> pos : array<i32>;
@group(0) @binding(4) var<storage, read_write> k_cache : array<KvWord>;
@group(0) @binding(5) var<storage, read_write> v_cache : array<KvWord>;
@group(0) @binding(6) var<uniform> p : Params;

#include "ops/attention/sdpa_batched_common.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let width = p.hkv * p.d;
  let i = (linear_workgroup(wid, nwg) * 256u + lid) * KV_PER_WORD;
  if (i >= p.rows * width) {
    return;
  }
  let r = i / width;
  if (!row_valid(r)) {
    return;
  }
  let dst = ((u32(slots[r]) * p.c_max + u32(pos[r])) * width + i % width) / KV_PER_WORD;
  let last = min(i + 1u, p.rows * width - 1u);  // the word's second element (f16 only)
  if (wid.z == 0u) {
    k_cache[dst] = kv_word(k_value[i], k_value[last]);
  } else {
    v_cache[dst] = kv_word(v_value[i], v_value[last]);
  }
}
