// Compute pipelines, created once and cached by (WGSL source hash, entry point, override constants,
// binding layout). Shader modules are cached by source hash.
//
// Creation runs inside a validation error scope: a WGSL compile error throws GpuError with
// "file:line:column: message" mapped back through #include expansion (shader_source.h).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "webgpu/handle.h"

namespace wgrt::webgpu {

class Device;

// One @group(0) @binding(i) of a kernel, in binding order.
enum class BindingType : uint8_t { Uniform, ReadOnlyStorage, Storage };

struct KernelSpec {
  std::string shader;                                     // embedded path under src/, e.g. "ops/norm/rms_norm.wgsl"
  std::string entry = "main";                             // compute entry point
  std::vector<BindingType> bindings;                      // @group(0) bindings 0..n-1
  std::vector<std::pair<std::string, double>> constants;  // WGSL `override` values
  std::string inline_source;                              // if set, compiled instead of `shader` (tests, tools)
};

struct Pipeline {
  ComputePipelineHandle pipeline;
  BindGroupLayoutHandle layout;
  std::vector<BindingType> bindings;
  std::string label;  // "<shader>:<entry>"
};

class PipelineCache {
 public:
  explicit PipelineCache(Device& dev) : dev_(dev) {}
  // The cached pipeline for `spec`, created on first use. Throws GpuError (WGSL or layout errors) or
  // InvalidArgument (unknown embedded shader).
  const Pipeline& get(const KernelSpec& spec);
  size_t pipeline_count() const { return pipelines_.size(); }
  size_t module_count() const { return modules_.size(); }

 private:
  Device& dev_;
  std::map<uint64_t, ShaderModuleHandle> modules_;
  std::map<std::string, std::unique_ptr<Pipeline>> pipelines_;
};

}  // namespace wgrt::webgpu
