#include "ops/linear/gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>


#include "webgpu/device.h"
#include "wgrt/error.h"

namespace wgrt::ops {

GemmConfig gemm_config(const webgpu::GemmTuning& t) {
  GemmConfig c;
  c.kind = t.kind;
  c.rq = t.rq;
  c.wg = t.wg;
  const webgpu::KernelSpec k = gemm_kernel(c, false);
  c.tile_m = webgpu::PipelineCache::value(k, "TILE_M");
  c.tile_n = webgpu::PipelineCache::value(k, "TILE_N");
  return c;
}

GemmConfig gemm_config(const webgpu::Device& dev) { return gemm_config(dev.tuning().gemm); }

namespace {
constexpr const char* kTiled = "ops/linear/gemm.wgsl";
constexpr const char* kCpu = "ops/linear/gemm_cpu.wgsl";
}  // namespace

std::vector<std::string> gemm_kernel_names() { return {std::string(kTiled) + ":main", std::string(kCpu) + ":main"}; }

webgpu::KernelSpec gemm_kernel(const GemmConfig& cfg, bool q4, bool b_k_fast, bool scale_f16) {
  webgpu::KernelSpec k = cfg.kind == GemmConfig::Kind::Cpu
                             ? webgpu::KernelSpec{kCpu, "main", {{"B_MODE", q4 ? 1.0 : 0.0}, {"RQ", double(cfg.rq)}, {"WG", double(cfg.wg)}}, {}}
                             : webgpu::KernelSpec{kTiled, "main", {{"B_MODE", q4 ? 1.0 : 0.0}, {"B_KFAST", b_k_fast ? 1.0 : 0.0}}, {}};
  if (q4 && scale_f16) k.constants.push_back({"SCALE_F16", 1.0});
  return k;
}

webgpu::KernelSpec gemm_big_kernel(bool q4, bool scale_f16, bool b_k_fast) {
  webgpu::KernelSpec k{"ops/linear/gemm_big.wgsl", "main", {{"B_MODE", q4 ? 1.0 : 0.0}}, {}};
  if (q4 && scale_f16) k.constants.push_back({"SCALE_F16", 1.0});
  if (!q4 && !b_k_fast) k.constants.push_back({"B_KFAST", 0.0});
  return k;
}

webgpu::KernelSpec gemm_splitk_reduce_kernel() { return {"ops/linear/gemm_splitk_reduce.wgsl", "main", {}, {}}; }

uint32_t gemm_splits(uint64_t workgroups, uint32_t K, uint64_t MN, uint32_t target, uint64_t max_partial_bytes) {
  if (target == 0 || workgroups == 0 || workgroups >= target || MN == 0) return 1;
  const uint64_t want = std::min<uint64_t>(div_up(target, workgroups), kGemmMaxSplits);
  for (uint64_t s = want; s > 1; --s)
    if (K % s == 0 && K / s >= 32 && s * MN * 4 <= max_partial_bytes) return uint32_t(s);
  return 1;
}

MmqSplit mmq_splits(uint64_t workgroups, uint32_t K, uint32_t kb, uint64_t MN, uint32_t target, uint64_t max_partial_bytes) {
  if (target == 0 || workgroups == 0 || workgroups >= target || MN == 0 || kb == 0) return {};
  const uint32_t slices = (K / 32 + kb - 1) / kb;
  uint64_t s = std::min<uint64_t>(div_up(target, workgroups), kMmqMaxSplits);
  while (s > 1 && (slices / s < 4 || s * MN * 4 > max_partial_bytes)) --s;
  if (s <= 1) return {};
  const uint32_t per = uint32_t(div_up(slices, s));  // slices per split; the last split may be shorter
  return {uint32_t(div_up(slices, per)), per * kb};
}

GemmConfig gemm_big_config() {
  GemmConfig c;
  const webgpu::KernelSpec k = gemm_big_kernel(false);
  c.tile_m = webgpu::PipelineCache::value(k, "TILE_M");
  c.tile_n = webgpu::PipelineCache::value(k, "TILE_N");
  return c;
}

namespace {
std::vector<std::pair<std::string, double>> mmq_constants(const webgpu::MmqTile& t) {
  return {{"WG", double(t.wg)}, {"MH", t.tm / (t.wg / 4.0)}, {"NH", t.tn / 64.0}, {"NB", double(t.kb)}, {"CVT", double(t.cvt)},
          {"PF", double(t.pf)}};
}
}  // namespace

webgpu::KernelSpec gemm_mmq_kernel(bool scale_f16, const webgpu::MmqTile& tile) {
  webgpu::KernelSpec k{"ops/linear/gemm_mmq.wgsl", "main", mmq_constants(tile), {}};
  k.constants.push_back({"SCALE_F16", scale_f16 ? 1.0 : 0.0});
  return k;
}

GemmConfig gemm_mmq_config(const webgpu::MmqTile& tile) {
  GemmConfig c;
  const webgpu::KernelSpec k = gemm_mmq_kernel(false, tile);
  c.tile_m = webgpu::PipelineCache::value(k, "TILE_M");
  c.tile_n = webgpu::PipelineCache::value(k, "TILE_N");
  return c;
}

webgpu::KernelSpec quantize_q8_kernel(bool natural) {
  return {"ops/linear/quantize_q8.wgsl", "main", {{"ORDER", natural ? 1.0 : 0.0}}, {}};
}

webgpu::KernelSpec gemm_mmq_ggml_kernel(int64_t wtype, const webgpu::MmqTile& tile) {
  webgpu::KernelSpec k{"ops/linear/gemm_mmq_ggml.wgsl", "main", mmq_constants(tile), {}};
  k.constants.push_back({"WTYPE", double(wtype)});
  return k;
}

void check_mmq_fits(const webgpu::Device& dev, const webgpu::KernelSpec& spec) {
  const uint64_t need = webgpu::PipelineCache::reflect(spec).workgroup_bytes;
  const uint64_t have = dev.limits().maxComputeWorkgroupStorageSize;
  if (need > have)
    throw InvalidArgument(fmt::format(
        "the int8 GEMM tile (WGRT_GEMM_MMQ_TILE) needs {} bytes of workgroup memory; this adapter has {} (use a "
        "smaller tile or fewer blocks per slice, or unset it)", need, have));
}

webgpu::KernelSpec gemm_variant(const GemmConfig& cfg, const char* tiled, const char* cpu) {
  if (cfg.kind == GemmConfig::Kind::Cpu) return {cpu, "main", {{"RQ", double(cfg.rq)}, {"WG", double(cfg.wg)}}, {}};
  return {tiled, "main", {}, {}};
}

Grid gemm_grid(const GemmConfig& cfg, const GemmParams& p, uint32_t max_per_dim) {
  if (p.M == 0 || p.N == 0 || p.batch == 0) return {0, 1, 1};
  const uint64_t tm = div_up(p.M, cfg.tile_m), tn = div_up(p.N, cfg.tile_n);
  // Batches past the z limit fold into the m-tile axis: `fold` batches side by side (the kernels undo it).
  const uint64_t fold = p.batch <= max_per_dim ? 1 : std::max<uint64_t>(1, max_per_dim / tm);
  const uint64_t zs = div_up(p.batch, fold);
  const uint64_t m_axis = tm * fold;
  Grid g;
  if (cfg.kind == GemmConfig::Kind::Cpu) g = {uint32_t(std::min<uint64_t>(m_axis, UINT32_MAX)), uint32_t(tn), uint32_t(zs)};
  else g = {uint32_t(tn), uint32_t(std::min<uint64_t>(m_axis, UINT32_MAX)), uint32_t(zs)};
  if (m_axis > max_per_dim || tn > max_per_dim || zs > max_per_dim)
    throw InvalidArgument(fmt::format("GEMM of M {} N {} batch {} needs a grid {}x{}x{} beyond the limit {} per dimension",
                                      p.M, p.N, p.batch, g.x, g.y, g.z, max_per_dim));
  return g;
}

}  // namespace wgrt::ops
