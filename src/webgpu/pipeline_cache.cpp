#include "webgpu/pipeline_cache.h"

#include <fmt/format.h>

#include <exception>

#include "webgpu/device.h"
#include "webgpu/shader_source.h"
#include "wgrt/error.h"

namespace wgrt::webgpu {

namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

struct ScopeResult {
  WGPUErrorType type = WGPUErrorType_NoError;
  std::string message;
};

ScopeResult pop_scope(Device& dev) {
  ScopeResult r;
  WGPUPopErrorScopeCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView msg, void* u1, void*) {
    auto* res = static_cast<ScopeResult*>(u1);
    res->type = type;
    res->message = str(msg);
  };
  cb.userdata1 = &r;
  dev.wait(wgpuDevicePopErrorScope(dev.get(), cb), "popping an error scope");
  return r;
}

// Compilation messages of a module, mapped to original files: "file:line:col: message" lines.
std::string compile_messages(Device& dev, WGPUShaderModule module, const shaders::ExpandedSource& src) {
  struct Ctx {
    const shaders::ExpandedSource* src;
    std::string out;
  } ctx{&src, {}};
  WGPUCompilationInfoCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPUCompilationInfoRequestStatus, const WGPUCompilationInfo* info, void* u1, void*) {
    auto* c = static_cast<Ctx*>(u1);
    if (!info) return;
    for (size_t i = 0; i < info->messageCount; ++i) {
      const auto& m = info->messages[i];
      if (m.type != WGPUCompilationMessageType_Error) continue;
      if (!c->out.empty()) c->out += "; ";
      c->out += fmt::format("{}:{}: {}", c->src->locate(int(m.lineNum)), m.linePos, str(m.message));
    }
  };
  cb.userdata1 = &ctx;
  dev.wait(wgpuShaderModuleGetCompilationInfo(module, cb), "reading WGSL compilation info");
  return ctx.out;
}

shaders::ExpandedSource expand_spec(const KernelSpec& spec) {
  if (!spec.inline_source.empty())
    return shaders::expand_inline(spec.shader.empty() ? "<inline>" : spec.shader, spec.inline_source);
  return shaders::expand(spec.shader, spec.prelude);
}

}  // namespace

WgslReflection PipelineCache::reflect(const KernelSpec& spec) {
  shaders::ExpandedSource src = expand_spec(spec);
  return reflect_wgsl(fmt::format("{}:{}", src.name, spec.entry), src.text, spec.entry, spec.constants);
}

uint32_t PipelineCache::value(const KernelSpec& spec, const std::string& name) {
  const WgslReflection r = reflect(spec);
  auto it = r.values.find(name);
  if (it == r.values.end())
    throw InvalidArgument(fmt::format("kernel {}:{} declares no const or override {}", spec.shader, spec.entry, name));
  return uint32_t(it->second);
}

const Pipeline& PipelineCache::get(const KernelSpec& spec) {
  shaders::ExpandedSource src = expand_spec(spec);
  uint64_t h = fnv1a(src.text);
  std::string key = fmt::format("{:016x}|{}|", h, spec.entry);
  for (auto& [k, v] : spec.constants) key += fmt::format("{}={};", k, v);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return *it->second;

  dev_.check_errors();
  auto p = std::make_unique<Pipeline>();
  p->label = fmt::format("{}:{}", src.name, spec.entry);
  // A WGSL compile error is the better message: reflection errors are raised after the module compiled.
  std::exception_ptr reflect_error;
  try {
    p->iface = reflect_wgsl(p->label, src.text, spec.entry, spec.constants);
  } catch (const InvalidArgument&) {
    reflect_error = std::current_exception();
  }

  wgpuDevicePushErrorScope(dev_.get(), WGPUErrorFilter_Validation);
  WGPUShaderModule module = nullptr;
  if (auto it = modules_.find(h); it != modules_.end()) {
    module = it->second.get();
  } else {
    WGPUShaderSourceWGSL wgsl{};
    wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
    wgsl.code = sv(src.text);
    WGPUShaderModuleDescriptor md{};
    md.nextInChain = &wgsl.chain;
    md.label = sv(src.name);
    module = wgpuDeviceCreateShaderModule(dev_.get(), &md);
    ScopeResult r = pop_scope(dev_);
    if (r.type != WGPUErrorType_NoError) {
      std::string detail = compile_messages(dev_, module, src);
      wgpuShaderModuleRelease(module);
      throw GpuError(fmt::format("WGSL compile error in {}: {}", src.name, detail.empty() ? r.message : detail));
    }
    modules_.emplace(h, ShaderModuleHandle(module));
    wgpuDevicePushErrorScope(dev_.get(), WGPUErrorFilter_Validation);
  }

  if (reflect_error) {
    pop_scope(dev_);
    std::rethrow_exception(reflect_error);
  }
  const std::vector<WgslBinding>& binds = p->iface.bindings;
  std::vector<WGPUBindGroupLayoutEntry> entries(binds.size());
  for (size_t i = 0; i < binds.size(); ++i) {
    WGPUBindGroupLayoutEntry& e = entries[i];
    e = WGPUBindGroupLayoutEntry{};
    e.binding = uint32_t(i);
    e.visibility = WGPUShaderStage_Compute;
    e.buffer.type = binds[i].type == BindingType::Uniform           ? WGPUBufferBindingType_Uniform
                    : binds[i].type == BindingType::ReadOnlyStorage ? WGPUBufferBindingType_ReadOnlyStorage
                                                                    : WGPUBufferBindingType_Storage;
  }
  WGPUBindGroupLayoutDescriptor bgl{};
  bgl.label = sv(p->label);
  bgl.entryCount = entries.size();
  bgl.entries = entries.data();
  p->layout.reset(wgpuDeviceCreateBindGroupLayout(dev_.get(), &bgl));
  WGPUBindGroupLayout layouts[] = {p->layout.get()};
  WGPUPipelineLayoutDescriptor pld{};
  pld.bindGroupLayoutCount = 1;
  pld.bindGroupLayouts = layouts;
  PipelineLayoutHandle pl(wgpuDeviceCreatePipelineLayout(dev_.get(), &pld));

  std::vector<WGPUConstantEntry> consts(spec.constants.size());
  for (size_t i = 0; i < spec.constants.size(); ++i) {
    consts[i] = WGPUConstantEntry{};
    consts[i].key = sv(spec.constants[i].first);
    consts[i].value = spec.constants[i].second;
  }
  WGPUComputePipelineDescriptor cd{};
  cd.label = sv(p->label);
  cd.layout = pl.get();
  cd.compute.module = module;
  cd.compute.entryPoint = sv(spec.entry);
  cd.compute.constantCount = consts.size();
  cd.compute.constants = consts.data();
  p->pipeline.reset(wgpuDeviceCreateComputePipeline(dev_.get(), &cd));
  ScopeResult r = pop_scope(dev_);
  if (r.type != WGPUErrorType_NoError)
    throw GpuError(fmt::format("creating compute pipeline {} failed: {}", p->label, r.message));
  auto& ref = *p;
  pipelines_.emplace(std::move(key), std::move(p));
  return ref;
}

}  // namespace wgrt::webgpu
