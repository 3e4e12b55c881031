// One WebGPU device shared by all GPU tests of the process (device creation costs ~100 ms on lavapipe).
// The adapter is the default choice (WGRT_ADAPTER may override it); tests never use a mock device.
#pragma once
#include <gtest/gtest.h>

#include <memory>

#include "webgpu/device.h"

namespace wgrt::test {

inline webgpu::Device& gpu() {
  static std::unique_ptr<webgpu::Device> dev = webgpu::Device::create();
  return *dev;
}

}  // namespace wgrt::test
