#include "webgpu/bind_group.h"

#include <fmt/format.h>

#include <vector>

#include "webgpu/device.h"
#include "wgrt/error.h"

namespace wgrt::webgpu {

BindGroupHandle make_bind_group(Device& dev, const Pipeline& p, std::span<const BufferBinding> bindings) {
  if (bindings.size() != p.iface.bindings.size())
    throw InvalidArgument(fmt::format("kernel {} takes {} bindings, got {}", p.label, p.iface.bindings.size(), bindings.size()));
  const WGPULimits& lim = dev.limits();
  std::vector<WGPUBindGroupEntry> entries(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    const BufferBinding& b = bindings[i];
    bool uniform = p.iface.bindings[i].type == BindingType::Uniform;
    uint64_t limit = uniform ? lim.maxUniformBufferBindingSize : lim.maxStorageBufferBindingSize;
    if (b.size > limit)
      throw LimitError(fmt::format("kernel {}: binding {} ('{}') is {} bytes, above the device's {} of {} bytes", p.label,
                                   i, b.label, b.size, uniform ? "maxUniformBufferBindingSize" : "maxStorageBufferBindingSize",
                                   limit));
    if (!b.buffer) throw InvalidArgument(fmt::format("kernel {}: binding {} ('{}') has no buffer", p.label, i, b.label));
    entries[i] = WGPUBindGroupEntry{};
    entries[i].binding = uint32_t(i);
    entries[i].buffer = b.buffer;
    entries[i].offset = b.offset;
    entries[i].size = (b.size + 3) / 4 * 4;
  }
  WGPUBindGroupDescriptor d{};
  d.label = sv(p.label);
  d.layout = p.layout.get();
  d.entryCount = entries.size();
  d.entries = entries.data();
  BindGroupHandle bg(wgpuDeviceCreateBindGroup(dev.get(), &d));
  dev.check_errors();
  return bg;
}

}  // namespace wgrt::webgpu
