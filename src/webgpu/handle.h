// RAII ownership of Dawn handles: one reference, released exactly once, move-only.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "webgpu/dawn_api.h"

namespace wgrt::webgpu {

template <typename T, void (*ReleaseFn)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Handle() { reset(); }
  void reset(T h = nullptr) {
    if (h_) ReleaseFn(h_);
    h_ = h;
  }
  T get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }

 private:
  T h_ = nullptr;
};

using InstanceHandle = Handle<WGPUInstance, wgpuInstanceRelease>;
using AdapterHandle = Handle<WGPUAdapter, wgpuAdapterRelease>;
using QueueHandle = Handle<WGPUQueue, wgpuQueueRelease>;
using ShaderModuleHandle = Handle<WGPUShaderModule, wgpuShaderModuleRelease>;
using ComputePipelineHandle = Handle<WGPUComputePipeline, wgpuComputePipelineRelease>;
using BindGroupLayoutHandle = Handle<WGPUBindGroupLayout, wgpuBindGroupLayoutRelease>;
using PipelineLayoutHandle = Handle<WGPUPipelineLayout, wgpuPipelineLayoutRelease>;
using BindGroupHandle = Handle<WGPUBindGroup, wgpuBindGroupRelease>;
using CommandEncoderHandle = Handle<WGPUCommandEncoder, wgpuCommandEncoderRelease>;
using ComputePassHandle = Handle<WGPUComputePassEncoder, wgpuComputePassEncoderRelease>;
using CommandBufferHandle = Handle<WGPUCommandBuffer, wgpuCommandBufferRelease>;

// Result slot of an asynchronous Dawn callback that may fire after the waiting code gave up (a timed-out
// wait, then instance shutdown cancels the future): the callback holds its own reference, so it never writes
// through a dangling pointer. Pass userdata() as userdata1; the callback calls take(userdata1) exactly once.
template <typename T>
struct AsyncSlot {
  std::shared_ptr<T> value = std::make_shared<T>();
  void* userdata() const { return new std::shared_ptr<T>(value); }
  static std::shared_ptr<T> take(void* u) {
    auto* p = static_cast<std::shared_ptr<T>*>(u);
    std::shared_ptr<T> v = std::move(*p);
    delete p;
    return v;
  }
};

// Views a std::string_view as a Dawn input string (explicit length, no NUL needed).
inline WGPUStringView sv(std::string_view s) { return WGPUStringView{s.data(), s.size()}; }
// Copies a Dawn output string (explicit length, not NUL-terminated; may be {NULL, 0}).
inline std::string str(WGPUStringView s) {
  if (!s.data) return {};
  if (s.length == WGPU_STRLEN) return std::string(s.data);
  return std::string(s.data, s.length);
}

}  // namespace wgrt::webgpu
