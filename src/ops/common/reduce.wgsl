// Workgroup-wide reductions by a tree in workgroup memory. The including kernel defines WG, its workgroup size
// (a power of two), and calls them from uniform control flow with its local_invocation_index: every invocation
// passes its value and gets the result. Each ends with a barrier, so calls may follow one another and red may
// be reused at once.
var<workgroup> red : array<f32, WG>;

fn workgroup_sum(v : f32, lid : u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (lid < s) {
      red[lid] += red[lid + s];
    }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}

fn workgroup_max(v : f32, lid : u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (lid < s) {
      red[lid] = max(red[lid], red[lid + s]);
    }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}
