#include "ops/linear/gemm.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "webgpu/device.h"
#include "wgrt/error.h"

namespace wgrt::ops {

namespace {

// Parses WGRT_GEMM ("tiled", "cpu", "cpu,RQ,WG"); false when unset.
bool gemm_config_from_env(GemmConfig& cfg) {
  const char* e = std::getenv("WGRT_GEMM");
  if (!e || !*e) return false;
  const std::string s(e);
  if (s == "tiled") {
    cfg = GemmConfig{};
    return true;
  }
  GemmConfig c;
  c.kind = GemmConfig::Kind::Cpu;
  unsigned rq = c.rq, wg = c.wg;
  char tail = 0;
  const bool ok = s == "cpu" || (std::sscanf(e, "cpu,%u,%u%c", &rq, &wg, &tail) == 2 && rq >= 1 && rq <= 4 &&
                                 wg >= 8 && wg <= 256 && wg % 8 == 0);
  if (!ok) throw InvalidArgument(fmt::format("WGRT_GEMM '{}': expected tiled, cpu or cpu,RQ,WG (RQ 1..4, WG 8..256 a multiple of 8)", s));
  c.rq = rq;
  c.wg = wg;
  cfg = c;
  return true;
}

}  // namespace

GemmConfig gemm_config_default() {
  GemmConfig cfg;
  gemm_config_from_env(cfg);
  return cfg;
}

bool gemm_cpu_supported(const webgpu::Device& dev) {
  return dev.has_subgroups() && dev.adapter_info().subgroup_min >= 8;
}

GemmConfig gemm_config(const webgpu::Device& dev) {
  GemmConfig cfg;
  const bool cpu_ok = gemm_cpu_supported(dev);
  if (gemm_config_from_env(cfg)) {
    if (cfg.kind == GemmConfig::Kind::Cpu && !cpu_ok)
      throw InvalidArgument(fmt::format("WGRT_GEMM selects the cpu GEMM kernel, which needs subgroups of at least 8 "
                                        "invocations; adapter '{}' has none", dev.adapter_info().description));
    return cfg;
  }
  // CPU drivers emulate workgroup memory and barriers and gather every lane-varying load (gemm_cpu.wgsl).
  if (dev.adapter_info().type == WGPUAdapterType_CPU && cpu_ok) cfg.kind = GemmConfig::Kind::Cpu;
  return cfg;
}

webgpu::KernelSpec gemm_kernel(const GemmConfig& cfg, bool q4, bool b_k_fast) {
  using webgpu::BindingType;
  std::vector<BindingType> layout{BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage,
                                  BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage,
                                  BindingType::Storage,         BindingType::Uniform};
  if (cfg.kind == GemmConfig::Kind::Cpu)
    return {"ops/linear/gemm_cpu.wgsl",
            "main",
            std::move(layout),
            {{"B_MODE", q4 ? 1.0 : 0.0}, {"RQ", double(cfg.rq)}, {"WG", double(cfg.wg)}},
            {}};
  return {"ops/linear/gemm.wgsl", "main", std::move(layout),
          {{"B_MODE", q4 ? 1.0 : 0.0}, {"B_KFAST", b_k_fast ? 1.0 : 0.0}}, {}};
}

Grid gemm_grid(const GemmConfig& cfg, const GemmParams& p, uint32_t max_per_dim) {
  if (p.M == 0 || p.N == 0 || p.batch == 0) return {0, 1, 1};
  const uint64_t tm = div_up(p.M, cfg.tile_m()), tn = div_up(p.N, cfg.tile_n());
  Grid g;
  if (cfg.kind == GemmConfig::Kind::Cpu) g = {uint32_t(tm), uint32_t(tn), p.batch};
  else g = {uint32_t(tn), uint32_t(tm), p.batch};
  if (g.x > max_per_dim || g.y > max_per_dim || g.z > max_per_dim)
    throw InvalidArgument(fmt::format("GEMM of M {} N {} batch {} needs a grid {}x{}x{} beyond the limit {} per dimension",
                                      p.M, p.N, p.batch, g.x, g.y, g.z, max_per_dim));
  return g;
}

webgpu::KernelSpec gemm_kernel(bool q4, bool b_k_fast) { return gemm_kernel(gemm_config_default(), q4, b_k_fast); }

Grid gemm_grid(const GemmParams& p, uint32_t max_per_dim) { return gemm_grid(gemm_config_default(), p, max_per_dim); }

}  // namespace wgrt::ops
