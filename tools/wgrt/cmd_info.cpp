// `wgrt info`: lists the adapters and describes the chosen one (features and key limits).
#include <fmt/format.h>

#include <memory>
#include <string>

#include "commands.h"
#include "webgpu/blob_cache.h"
#include "webgpu/device.h"

namespace wgrt::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "List WebGPU adapters and show the chosen adapter's features and limits");
  auto adapter = std::make_shared<std::string>();
  cmd->add_option("--adapter", *adapter,
                  "Adapter to use: backend (vulkan, opengl, opengles), type (discrete, integrated, cpu) or a name "
                  "substring; default: $WGRT_ADAPTER, else the best discrete GPU, else the CPU adapter");
  cmd->callback([adapter] {
    webgpu::DeviceOptions opts;
    opts.adapter = *adapter;
    auto dev = webgpu::Device::create(opts);
    fmt::print("Adapters:\n");
    for (const auto& a : dev->adapters())
      fmt::print("  {} {}\n", a.info.device == dev->adapter_info().device && a.info.backend == dev->adapter_info().backend ? "*" : " ",
                 a.info.summary());
    const auto& i = dev->adapter_info();
    const WGPULimits& l = dev->limits();
    fmt::print("\nChosen adapter:\n");
    fmt::print("  vendor:        {} (0x{:04x})\n", i.vendor, i.vendor_id);
    fmt::print("  device:        {} (0x{:04x})\n", i.device, i.device_id);
    fmt::print("  architecture:  {}\n", i.architecture);
    fmt::print("  driver:        {}\n", i.description);
    fmt::print("  backend:       {}\n", i.backend_name());
    fmt::print("  adapter type:  {}\n", i.type_name());
    fmt::print("  subgroup size: {}..{}\n", i.subgroup_min, i.subgroup_max);
    fmt::print("  features:      {}\n", dev->features_string());
    fmt::print("  disk cache:    {}\n", dev->blob_cache() ? dev->blob_cache()->folder().string()
                                                        : std::string("off (WGRT_CACHE_DIR=off or no home folder)"));
    fmt::print("Limits:\n");
    fmt::print("  maxComputeWorkgroupStorageSize:    {} bytes\n", l.maxComputeWorkgroupStorageSize);
    fmt::print("  maxComputeInvocationsPerWorkgroup: {}\n", l.maxComputeInvocationsPerWorkgroup);
    fmt::print("  maxComputeWorkgroupSize (x,y,z):   {}, {}, {}\n", l.maxComputeWorkgroupSizeX,
               l.maxComputeWorkgroupSizeY, l.maxComputeWorkgroupSizeZ);
    fmt::print("  maxComputeWorkgroupsPerDimension:  {}\n", l.maxComputeWorkgroupsPerDimension);
    fmt::print("  maxBufferSize:                     {} bytes ({:.0f} MiB)\n", l.maxBufferSize,
               double(l.maxBufferSize) / 1048576.0);
    fmt::print("  maxStorageBufferBindingSize:       {} bytes ({:.0f} MiB)\n", l.maxStorageBufferBindingSize,
               double(l.maxStorageBufferBindingSize) / 1048576.0);
    fmt::print("  maxStorageBuffersPerShaderStage:   {}\n", l.maxStorageBuffersPerShaderStage);
    fmt::print("  minStorageBufferOffsetAlignment:   {}\n", l.minStorageBufferOffsetAlignment);
    fmt::print("Tuning policy (src/webgpu/tuning.h):\n");
    std::string t = dev->tuning().describe();
    for (size_t p = 0, e; p < t.size(); p = e + 1) {
      e = t.find('\n', p);
      fmt::print("  {}\n", t.substr(p, e - p));
    }
  });
}

}  // namespace wgrt::cli
