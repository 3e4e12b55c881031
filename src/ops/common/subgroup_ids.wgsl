// The subgroup numbering shared by the subgroup kernels (gemv_q4_sg.wgsl, gemv_q4_s8.wgsl, sdpa_decode_sg.wgsl).
// Nothing assumes a subgroup size or layout: a lane's rank and the lane count come from subgroupExclusiveAdd /
// subgroupAdd, and each subgroup draws its index from a workgroup counter (so indices are 0 .. subgroups - 1 in
// arrival order).
// The includer enables `subgroups`; sg_next must start at 0 (workgroup memory is zeroed), and once every subgroup
// has called subgroup_ids and a workgroupBarrier has passed, atomicLoad(&sg_next) is the subgroup count.

var<workgroup> sg_next : atomic<u32>;

struct SubgroupIds {
  lane : u32,   // this invocation's rank in its subgroup
  lanes : u32,  // invocations in the subgroup
  sgi : u32,    // the subgroup's index in the workgroup
}

fn subgroup_ids() -> SubgroupIds {
  var first = 0u;
  if (subgroupElect()) {
    first = atomicAdd(&sg_next, 1u);
  }
  return SubgroupIds(subgroupExclusiveAdd(1u), subgroupAdd(1u), subgroupBroadcastFirst(first));
}
