// wgrt.sdpa_batched, attention: one workgroup per (row r, query head h), R*Hq workgroups. Row r attends to the
// keys at positions [0, pos[r]] of its slot's cache region (causal within its own sequence; other slots are
// never read), or with a sliding window only to those after pos[r] - window; scores optionally soft-capped
// (the _swa variant). GQA: query head h reads kv head h / (Hq/Hkv). The body is sdpa_common.wgsl's attend_row.
// The cache-write dispatch runs first, so the rows of this call (a prefill chunk of one slot) see each other.
#include "ops/common/index.wgsl"

@group(0) @binding(0) var<storage, read> q : array<f32>;
@group(0) @binding(1) var<storage, read> k_cache : array<KvWord>;  // the prelude kv_f32.wgsl or kv_f16.wgsl
@group(0) @binding(2) var<storage, read> v_cache : array<KvWord>;
@group(0) @binding(3) var<storage, read> slots : array<i32>;
@group(0) @binding(4) var<storage, read> pos : array<i32>;
@group(0) @binding(5) var<storage, read_write> scores : array<f32>;
@group(0) @binding(6) var<storage, read_write> out : array<f32>;
@group(0) @binding(7) var<uniform> p : Params;

#include "ops/attention/sdpa_batched_common.wgsl"
#include "ops/attention/sdpa_common.wgsl"

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let qr = linear_workgroup(wid, nwg);  // query head row: r*Hq + h
  if (qr >= p.rows * p.hq) {
    return;  // uniform per workgroup
  }
  let r = qr / p.hq;
  let h = qr % p.hq;
  if (!row_valid(r)) {
    for (var d = lid; d < p.d; d += WG) {
      out[qr * p.d + d] = 0.0;
    }
    return;  // uniform per workgroup
  }
  let qpos = u32(pos[r]);
  let kb = (u32(slots[r]) * p.c_max * p.hkv + h / (p.hq / p.hkv)) * p.d;
  attend_row(qr, kb, first_key(qpos), qpos + 1u, lid);
}
