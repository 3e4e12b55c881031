// Shared by the RMSNorm kernels (256 invocations per workgroup): parameters and a workgroup-wide sum by tree
// reduction.
struct Params {
  rows : u32,
  D : u32,
  eps : f32,
  _pad : u32,
}

var<workgroup> red : array<f32, 256>;

fn block_sum(v : f32, lid : u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var stride = 128u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      red[lid] += red[lid + stride];
    }
    workgroupBarrier();
  }
  return red[0];
}
