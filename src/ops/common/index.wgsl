// Shared WGSL helpers: the linear workgroup index of a (possibly 2-D folded) dispatch grid.
// The host folds a 1-D workgroup count above maxComputeWorkgroupsPerDimension into x*y (util/dispatch_grid.h);
// kernels recover the linear index and must return when it is past the real count.
fn linear_workgroup(wid : vec3<u32>, nwg : vec3<u32>) -> u32 {
  return wid.y * nwg.x + wid.x;
}
