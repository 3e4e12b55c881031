#include "webgpu/instance.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>

#include "wgrt/error.h"

namespace wgrt::webgpu {

void check_exported_symbols() {
#ifdef __EMSCRIPTEN__  // the browser build links src/webgpu_web/ statically: a missing function fails the link
  return;
#endif
  for (const char* name : kDeclaredFunctions)
    if (!dlsym(RTLD_DEFAULT, name))
      throw GpuError(fmt::format("the loaded libwebgpu_wrapper.so does not export '{}' (wrong Dawn build?)", name));
}

std::string AdapterInfo::backend_name() const {
  switch (backend) {
    case WGPUBackendType_Vulkan: return "Vulkan";
    case WGPUBackendType_OpenGL: return "OpenGL";
    case WGPUBackendType_OpenGLES: return "OpenGLES";
    case WGPUBackendType_Metal: return "Metal";
    case WGPUBackendType_D3D12: return "D3D12";
    case WGPUBackendType_D3D11: return "D3D11";
    case WGPUBackendType_Null: return "Null";
    case WGPUBackendType_WebGPU: return "WebGPU";
    default: return "Undefined";
  }
}

std::string AdapterInfo::type_name() const {
  switch (type) {
    case WGPUAdapterType_DiscreteGPU: return "discrete GPU";
    case WGPUAdapterType_IntegratedGPU: return "integrated GPU";
    case WGPUAdapterType_CPU: return "CPU";
    default: return "unknown";
  }
}

std::string AdapterInfo::summary() const {
  return fmt::format("{} [{}, {}]", device.empty() ? description : device, backend_name(), type_name());
}

uint64_t Instance::default_timeout_ns() {
  double s = 300;
  if (const char* e = std::getenv("WGRT_GPU_TIMEOUT_S")) {
    char* end = nullptr;
    s = std::strtod(e, &end);
    if (end == e || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 1e6)
      throw InvalidArgument(fmt::format("WGRT_GPU_TIMEOUT_S='{}' is not a number of seconds in (0, 1e6]", e));
  }
  return uint64_t(s * 1e9);
}

Instance::Instance() {
  check_exported_symbols();
  WGPUInstanceDescriptor desc{};
  desc.capabilities.timedWaitAnyEnable = 1;
  inst_.reset(wgpuCreateInstance(&desc));
  if (!inst_) throw GpuError("wgpuCreateInstance failed (Dawn could not create an instance)");
}

std::string timeout_message(const char* what, uint64_t timeout_ns) {
  const double s = double(timeout_ns) / 1e9;
  return fmt::format("{} timed out after {} s (GPU hung or overloaded; WGRT_GPU_TIMEOUT_S sets the limit)", what,
                     s >= 100 ? fmt::format("{:.0f}", s) : fmt::format("{:.3g}", s));
}

std::vector<std::string> listed_vulkan_drivers() {
  const char* v = std::getenv("VK_DRIVER_FILES");
  if (!v || !*v) v = std::getenv("VK_ICD_FILENAMES");
  std::vector<std::string> out;
  if (!v) return out;
  std::string s = v;
  for (size_t b = 0; b <= s.size();) {
    size_t e = s.find(':', b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

void Instance::wait(WGPUFuture f, const char* what, uint64_t timeout_ns) const {
  if (f.id == 0) throw GpuError(fmt::format("{}: Dawn returned a null future", what));
  WGPUFutureWaitInfo info{f, 0};
  WGPUWaitStatus st = wgpuInstanceWaitAny(inst_.get(), 1, &info, timeout_ns);
  if (st == WGPUWaitStatus_TimedOut) {
    had_timeout_ = true;
    throw GpuError(timeout_message(what, timeout_ns));
  }
  if (st != WGPUWaitStatus_Success || !info.completed)
    throw GpuError(fmt::format("{}: wgpuInstanceWaitAny failed (status {})", what, int(st)));
}

namespace {

struct AdapterResult {
  WGPUAdapter adapter = nullptr;
  std::string message;
};

// Dawn's chained struct for the memory heaps (webgpu.h of Dawn 5b5dff4976: WGPUAdapterPropertiesMemoryHeaps,
// WGPUMemoryHeapInfo; WGPUHeapProperty_DeviceLocal = 1). Not in the generated dawn_api.h subset.
struct MemoryHeapInfo {
  uint64_t properties;
  uint64_t size;
};
struct AdapterPropertiesMemoryHeaps {
  WGPUChainedStruct chain;
  size_t heap_count;
  const MemoryHeapInfo* heap_info;
};
#ifndef __EMSCRIPTEN__  // LP64 sizes; on wasm32 the browser layer offers no memory-heap feature and never fills it
static_assert(sizeof(AdapterPropertiesMemoryHeaps) == 32 && sizeof(MemoryHeapInfo) == 16);
#endif
extern "C" void wgpuAdapterPropertiesMemoryHeapsFreeMembers(AdapterPropertiesMemoryHeaps value);

AdapterInfo read_info(WGPUAdapter a, WGPUFeatureLevel level) {
  WGPUAdapterInfo raw{};
  AdapterInfo info;
  AdapterPropertiesMemoryHeaps heaps{};
  const bool has_heaps = wgpuAdapterHasFeature(a, WGPUFeatureName_AdapterPropertiesMemoryHeaps);
  if (has_heaps) {
    heaps.chain.sType = WGPUSType_AdapterPropertiesMemoryHeaps;
    raw.nextInChain = &heaps.chain;
  }
  if (wgpuAdapterGetInfo(a, &raw) == WGPUStatus_Success) {
    for (size_t i = 0; has_heaps && heaps.heap_info && i < heaps.heap_count; ++i)
      if (heaps.heap_info[i].properties & 1u) info.device_local_bytes += heaps.heap_info[i].size;
    if (has_heaps) wgpuAdapterPropertiesMemoryHeapsFreeMembers(heaps);
    info.vendor = str(raw.vendor);
    info.architecture = str(raw.architecture);
    info.device = str(raw.device);
    info.description = str(raw.description);
    info.backend = raw.backendType;
    info.type = raw.adapterType;
    info.vendor_id = raw.vendorID;
    info.device_id = raw.deviceID;
    info.subgroup_min = raw.subgroupMinSize;
    info.subgroup_max = raw.subgroupMaxSize;
    wgpuAdapterInfoFreeMembers(raw);
  }
  info.feature_level = level;
  return info;
}

int rank(const AdapterInfo& i) {
  int r = 0;
  switch (i.type) {
    case WGPUAdapterType_DiscreteGPU: r = 400; break;
    case WGPUAdapterType_IntegratedGPU: r = 300; break;
    case WGPUAdapterType_CPU: r = 100; break;
    default: r = 200;
  }
  if (i.backend == WGPUBackendType_Vulkan) r += 10;  // core feature level, full limits
  return r;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool matches(const AdapterInfo& i, const std::string& spec) {
  std::string s = lower(spec);
  std::string type = i.type == WGPUAdapterType_DiscreteGPU    ? "discrete gpu"
                     : i.type == WGPUAdapterType_IntegratedGPU ? "integrated gpu"
                     : i.type == WGPUAdapterType_CPU           ? "cpu"
                                                               : "unknown";
  std::string backend = lower(i.backend_name());
  // Backend names match exactly ("opengl" must not select OpenGLES), everything else as a substring.
  for (const char* b : {"vulkan", "opengl", "opengles", "gl", "metal", "d3d12", "d3d11"})
    if (s == b) return s == backend || (s == "gl" && backend.starts_with("opengl"));
  for (const std::string& field : {type, lower(i.vendor), lower(i.device), lower(i.description), lower(i.architecture)})
    if (!field.empty() && field.find(s) != std::string::npos) return true;
  return false;
}

}  // namespace

bool Instance::request(const Probe& p, const std::shared_ptr<Instance>& owner, Instance& via) {
  WGPURequestAdapterOptions opts{};
  opts.featureLevel = p.level;
  opts.powerPreference = p.power;
  opts.backendType = p.backend;
  AsyncSlot<AdapterResult> slot;
  WGPURequestAdapterCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView msg, void* u1, void*) {
    auto r = AsyncSlot<AdapterResult>::take(u1);
    if (status == WGPURequestAdapterStatus_Success) r->adapter = adapter;
    r->message = str(msg);
  };
  cb.userdata1 = slot.userdata();
  via.wait(wgpuInstanceRequestAdapter(via.get(), &opts, cb), "requesting an adapter");
  const AdapterResult& res = *slot.value;
  if (!res.adapter) return false;
  AdapterInfo info = read_info(res.adapter, p.level);
  bool dup = std::any_of(adapters_.begin(), adapters_.end(), [&](const Adapter& a) {
    return a.info.backend == info.backend && a.info.vendor_id == info.vendor_id &&
           a.info.device_id == info.device_id && a.info.device == info.device;
  });
  if (dup) {
    wgpuAdapterRelease(res.adapter);
    return true;
  }
  adapters_.push_back({info, std::make_shared<AdapterHandle>(res.adapter), owner});
  return true;
}

const std::vector<Adapter>& Instance::adapters() {
  if (listed_) return adapters_;
  listed_ = true;
  std::vector<Probe> probes = {
      {WGPUBackendType_Vulkan, WGPUFeatureLevel_Core, WGPUPowerPreference_HighPerformance},
      {WGPUBackendType_Vulkan, WGPUFeatureLevel_Core, WGPUPowerPreference_LowPower},
  };
  // Dawn's GL backend is probed only on request: its EGL set-up prints driver noise on machines without GL.
  const char* gl = std::getenv("WGRT_ENABLE_GL");
  if (gl && std::string(gl) == "1") {
    probes.push_back({WGPUBackendType_OpenGLES, WGPUFeatureLevel_Compatibility, WGPUPowerPreference_Undefined});
    probes.push_back({WGPUBackendType_OpenGL, WGPUFeatureLevel_Compatibility, WGPUPowerPreference_Undefined});
  }
  for (const Probe& p : probes) request(p, nullptr, *this);
  // Several Vulkan drivers named: one extra instance per driver (see instance.h), keeping only new adapters.
  const std::vector<std::string> drivers = listed_vulkan_drivers();
  if (drivers.size() > 1) {
    static std::mutex env_mu;
    std::lock_guard<std::mutex> lock(env_mu);
    const char* var = std::getenv("VK_DRIVER_FILES") && *std::getenv("VK_DRIVER_FILES") ? "VK_DRIVER_FILES"
                                                                                         : "VK_ICD_FILENAMES";
    const std::string saved = std::getenv(var);
    for (const std::string& file : drivers) {
      setenv(var, file.c_str(), 1);
      try {
        auto sub = std::make_shared<Instance>();
        sub->listed_ = true;  // never lists on its own
        request(probes[0], sub, *sub);
      } catch (const Error&) {  // a driver that fails to load is left out, as the loader would
      }
    }
    setenv(var, saved.c_str(), 1);
  }
  std::stable_sort(adapters_.begin(), adapters_.end(),
                   [](const Adapter& a, const Adapter& b) { return rank(a.info) > rank(b.info); });
  return adapters_;
}

Adapter Instance::choose(const std::string& spec_in) {
  std::string spec = spec_in;
  std::string source = "--adapter";
  if (spec.empty()) {
    if (const char* e = std::getenv("WGRT_ADAPTER")) {
      spec = e;
      source = "WGRT_ADAPTER";
    }
  }
  const auto& all = adapters();
  std::string listing;
  for (const auto& a : all) listing += fmt::format("{}{}", listing.empty() ? " " : "; ", a.info.summary());
  if (all.empty())
    throw InvalidArgument(
        "no WebGPU adapter found (is a Vulkan driver installed? lavapipe: mesa-vulkan-drivers >= 25; "
        "VK_ICD_FILENAMES selects the driver)");
  if (spec.empty()) return all.front();
  for (const auto& a : all)
    if (matches(a.info, spec)) return a;
  throw InvalidArgument(fmt::format("no adapter matches {}='{}'; available adapters:{}", source, spec, listing));
}

}  // namespace wgrt::webgpu
