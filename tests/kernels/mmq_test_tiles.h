// The int8 GEMM tile variants (webgpu::MmqTile: what the tuning policy picks and WGRT_GEMM_MMQ_TILE may force)
// that fit the test adapter's workgroup memory (pf: set it as the policy's gemm_mmq_pipeline, which the rule copies in), for the value tests of both int8 kernels (linear_mmq_test.cpp,
// linear_mmq_ggml_test.cpp). Measured by the larger of the two (the block-format kernel, Q6_K).
#pragma once
#include <vector>

#include "gpu_fixture.h"
#include "ops/linear/gemm.h"
#include "webgpu/device.h"
#include "webgpu/pipeline_cache.h"
#include "webgpu/tuning.h"

namespace wgrt::test {

inline std::vector<webgpu::MmqTile> mmq_tile_variants() {
  // Every TM x TN at KB 2, KB 1 and 4 at a large and a small tile, and CVT 0 twice; then the pipelined main loop
  // (PF 1, which the tests set through the policy's gemm_mmq_pipeline) at every TM x TN, KB 1 and 4, and CVT 0;
  // then workgroups of 128 invocations.
  const webgpu::MmqTile all[] = {{128, 128, 2, 1},    {64, 128, 2, 1},    {128, 64, 2, 1},   {64, 64, 2, 1},
                                 {128, 128, 1, 1},    {64, 128, 4, 1},    {64, 64, 4, 1},    {128, 128, 4, 1},
                                 {128, 128, 2, 0},    {64, 64, 1, 0},     {64, 64, 2, 1, 1}, {128, 128, 2, 1, 1},
                                 {64, 128, 4, 1, 1},  {128, 64, 1, 0, 1}, {64, 64, 4, 1, 1}, {128, 128, 1, 1, 1},
                                 // 128 invocations (half the rows per tile): TM 32 and 64, TN 64 and 128, KB 1 / 2 / 4
                                 {32, 64, 2, 1, 0, 128}, {64, 64, 2, 1, 1, 128}, {32, 128, 2, 1, 1, 128},
                                 {64, 128, 1, 1, 0, 128}, {64, 64, 4, 1, 1, 128}, {32, 64, 4, 0, 1, 128}};
  std::vector<webgpu::MmqTile> v;
  const uint64_t smem = gpu().limits().maxComputeWorkgroupStorageSize;
  for (const webgpu::MmqTile& t : all)
    if (webgpu::PipelineCache::reflect(ops::gemm_mmq_ggml_kernel(14, t)).workgroup_bytes <= smem) v.push_back(t);
  return v;
}

}  // namespace wgrt::test
