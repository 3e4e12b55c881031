// Bind groups for @group(0), checked against the device's binding limits.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "webgpu/handle.h"
#include "webgpu/pipeline_cache.h"

namespace wgrt::webgpu {

class Device;

// One buffer range bound at @binding(i) (i = position in the span).
struct BufferBinding {
  WGPUBuffer buffer = nullptr;
  uint64_t offset = 0;  // bytes; a multiple of min{Storage,Uniform}BufferOffsetAlignment
  uint64_t size = 0;    // bytes; a multiple of 4
  std::string_view label;  // tensor or buffer name, for error messages
};

// Throws LimitError when a storage binding exceeds maxStorageBufferBindingSize (or a uniform binding
// maxUniformBufferBindingSize), naming the label, size and limit; InvalidArgument when the count of
// bindings differs from the pipeline's layout.
BindGroupHandle make_bind_group(Device& dev, const Pipeline& p, std::span<const BufferBinding> bindings);

}  // namespace wgrt::webgpu
