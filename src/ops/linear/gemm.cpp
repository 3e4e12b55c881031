#include "ops/linear/gemm.h"

#include <fmt/format.h>

#include "wgrt/error.h"

namespace wgrt::ops {

webgpu::KernelSpec gemm_kernel(bool q4, bool b_k_fast) {
  using webgpu::BindingType;
  return {"ops/linear/gemm.wgsl",
          "main",
          {BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage,
           BindingType::ReadOnlyStorage, BindingType::Storage, BindingType::Uniform},
          {{"B_MODE", q4 ? 1.0 : 0.0}, {"B_KFAST", b_k_fast ? 1.0 : 0.0}},
          {}};
}

Grid gemm_grid(const GemmParams& p, uint32_t max_per_dim) {
  Grid g{uint32_t(div_up(p.N, kGemmTile)), uint32_t(div_up(p.M, kGemmTile)), p.batch};
  if (p.M == 0 || p.N == 0 || p.batch == 0) return {0, 1, 1};
  if (g.x > max_per_dim || g.y > max_per_dim || g.z > max_per_dim)
    throw InvalidArgument(fmt::format("GEMM of M {} N {} batch {} needs a grid {}x{}x{} beyond the limit {} per dimension",
                                      p.M, p.N, p.batch, g.x, g.y, g.z, max_per_dim));
  return g;
}

}  // namespace wgrt::ops
