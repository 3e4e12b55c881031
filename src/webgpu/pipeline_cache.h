// Compute pipelines, created once and cached by (WGSL source hash, entry point, override constants).
// Shader modules are cached by source hash.
//
// The WGSL is the one source of a kernel's interface: the bind-group layout is built from the shader's
// `@group(0) @binding(N) var<...>` declarations (wgsl_reflect.h), and the reflection (bindings, uniform struct
// layouts, workgroup size, workgroup memory) is kept on the Pipeline for OpBuilder::dispatch's checks.
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
#include "webgpu/wgsl_reflect.h"

namespace wgrt::webgpu {

class Device;

struct KernelSpec {
  std::string shader;                                     // embedded path under src/, e.g. "ops/norm/rms_norm.wgsl"
  std::string entry = "main";                             // compute entry point
  std::vector<std::pair<std::string, double>> constants;  // WGSL `override` values
  std::string inline_source;                              // if set, compiled instead of `shader` (tests, tools)
  // Embedded files included ahead of `shader` (not with inline_source): a variant of the types the kernel is
  // written against, e.g. "ops/kv_cache/kv_f16.wgsl" for the kernels that read or write a KV cache. Errors and
  // the pipeline label still name `shader`; the cache key is the expanded text, so each variant is its own.
  std::vector<std::string> prelude;
};

struct Pipeline {
  ComputePipelineHandle pipeline;
  BindGroupLayoutHandle layout;
  WgslReflection iface;  // bindings (layout order), uniform layouts, workgroup size and memory
  std::string label;     // "<shader>:<entry>"
};

class PipelineCache {
 public:
  explicit PipelineCache(Device& dev) : dev_(dev) {}
  // The cached pipeline for `spec`, created on first use. Throws GpuError (WGSL or layout errors) or
  // InvalidArgument (unknown embedded shader).
  const Pipeline& get(const KernelSpec& spec);
  // The kernel's interface without creating a pipeline (e.g. its workgroup memory, to decide whether it fits
  // the device). Throws InvalidArgument (unknown shader, malformed declarations).
  static WgslReflection reflect(const KernelSpec& spec);
  // A module-scope const or override of the kernel (WgslReflection::values), e.g. its tile or chunk size.
  // Throws InvalidArgument naming the kernel when it declares no such number.
  static uint32_t value(const KernelSpec& spec, const std::string& name);
  size_t pipeline_count() const { return pipelines_.size(); }
  size_t module_count() const { return modules_.size(); }

 private:
  Device& dev_;
  std::map<uint64_t, ShaderModuleHandle> modules_;
  std::map<std::string, std::unique_ptr<Pipeline>> pipelines_;
};

}  // namespace wgrt::webgpu
