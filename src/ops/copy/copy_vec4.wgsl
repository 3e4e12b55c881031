// Plain vec4 copy, `main`: dst[i] = src[i] for i < n (n counted in vec4s). Bandwidth reference for benchmarks
// and the simplest real kernel for device tests. Plain vec4 read, `read_all`: loads src[i] for i < n and stores
// nothing (the store sits behind a condition no input meets): the read-bandwidth reference. Grid: 1-D or folded
// 2-D, 256 invocations per workgroup.
struct Params {
  n : u32,
  _pad0 : u32,
  _pad1 : u32,
  _pad2 : u32,
}

@group(0) @binding(0) var<storage, read> src : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst : array<vec4<f32>>;
@group(0) @binding(2) var<uniform> params : Params;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i < params.n) {
    dst[i] = src[i];
  }
}

@compute @workgroup_size(256)
fn read_all(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i < params.n) {
    let v = src[i];
    if (dot(v, v) < 0.0) {
      dst[0] = v;
    }
  }
}
