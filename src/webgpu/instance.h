// The Dawn instance (timed waits enabled), synchronous waits, adapter listing and adapter choice.
//
// Adapter choice follows, in order: an explicit spec (CLI `--adapter`), else the WGRT_ADAPTER environment
// variable, else the best adapter: discrete GPU > integrated GPU > other > CPU (lavapipe, SwiftShader).
// A spec matches case-insensitively as a substring of the backend name ("vulkan", "opengl", "opengles"),
// the adapter type ("discrete", "integrated", "cpu"), or the vendor/device/description strings. Which
// Vulkan drivers exist at all is decided by the Vulkan loader (VK_ICD_FILENAMES is honoured).
//
// Listing: Dawn's C API has no adapter enumeration (wgpuInstanceEnumerateAdapters is not exported by this
// build), and wgpuInstanceRequestAdapter returns only the first adapter of the preferred type, so two
// adapters of one type (lavapipe and SwiftShader, both CPU) hide each other. adapters() therefore requests
// per power preference, and when the environment names several Vulkan drivers (VK_DRIVER_FILES, else
// VK_ICD_FILENAMES, ':'-separated) also once per driver, from an extra Dawn instance created while that
// variable names only that driver (the Vulkan loader reads it when Dawn creates its VkInstance, during the
// first request). The variable is restored at once; a process-wide mutex serializes these swaps, but other
// threads reading the environment at that moment could see the single-driver value.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "webgpu/handle.h"

namespace wgrt::webgpu {

struct AdapterInfo {
  std::string vendor, architecture, device, description;
  WGPUBackendType backend = WGPUBackendType_Undefined;
  WGPUAdapterType type = WGPUAdapterType_Unknown;
  uint32_t vendor_id = 0, device_id = 0;
  uint32_t subgroup_min = 0, subgroup_max = 0;
  WGPUFeatureLevel feature_level = WGPUFeatureLevel_Core;
  // Bytes of the adapter's device-local memory heaps (Dawn's AdapterPropertiesMemoryHeaps: the sum of the
  // heaps flagged DeviceLocal; for CPU adapters such as lavapipe, system memory); 0 when the adapter does not
  // report its heaps. The only memory size WebGPU lets wgrt see.
  uint64_t device_local_bytes = 0;

  std::string backend_name() const;
  std::string type_name() const;
  std::string summary() const;  // one line: "llvmpipe (...) [Vulkan, CPU]"
};

class Instance;

// An adapter found by Instance::adapters(), with the handle Dawn gave for it.
struct Adapter {
  AdapterInfo info;
  std::shared_ptr<AdapterHandle> handle;
  std::shared_ptr<Instance> owner;  // the extra per-driver instance it came from; null: the listing instance
};

// "<what> timed out after N s (...)": N with up to 3 significant digits (0.5, 2.25, 300).
std::string timeout_message(const char* what, uint64_t timeout_ns);

// The Vulkan driver manifests the environment names, in order (VK_DRIVER_FILES, else VK_ICD_FILENAMES);
// empty when neither is set.
std::vector<std::string> listed_vulkan_drivers();

class Instance {
 public:
  // Creates a Dawn instance with timed WaitAny enabled. Throws GpuError if Dawn refuses, or if the loaded
  // libwebgpu_wrapper.so lacks any function wgrt declares (the message names the missing symbol).
  Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  WGPUInstance get() const { return inst_.get(); }

  // Waits for one future. timeout_ns: UINT64_MAX = forever. Throws GpuError on timeout ("<what> timed out
  // after N s") or misuse. The default comes from WGRT_GPU_TIMEOUT_S (seconds, default 300).
  void wait(WGPUFuture f, const char* what, uint64_t timeout_ns = default_timeout_ns()) const;
  static uint64_t default_timeout_ns();
  // True once any wait() has timed out: work submitted earlier may still be running (or stuck).
  bool had_timeout() const { return had_timeout_.load(); }

  // Every adapter Dawn offers (Vulkan, plus OpenGL/OpenGLES in compatibility mode), deduplicated.
  const std::vector<Adapter>& adapters();

  // Chooses one: spec non-empty -> the best match of the spec; empty -> WGRT_ADAPTER if set, else the best.
  // Throws InvalidArgument listing the available adapters when nothing matches or none exists.
  Adapter choose(const std::string& spec);

 private:
  struct Probe {
    WGPUBackendType backend;
    WGPUFeatureLevel level;
    WGPUPowerPreference power;
  };
  // Requests one adapter; false if Dawn has none for `p`. Adds it to adapters_ unless already listed.
  bool request(const Probe& p, const std::shared_ptr<Instance>& owner, Instance& via);
  InstanceHandle inst_;
  std::vector<Adapter> adapters_;
  bool listed_ = false;
  mutable std::atomic<bool> had_timeout_{false};
};

// Checks that every function in dawn_api.h is exported by the process (i.e. by libwebgpu_wrapper.so).
// Throws GpuError naming the first missing symbol.
void check_exported_symbols();

}  // namespace wgrt::webgpu
