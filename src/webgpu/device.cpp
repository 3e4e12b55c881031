#include "webgpu/device.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "webgpu/blob_cache.h"
#include "webgpu/buffer.h"
#include "webgpu/dawn_cache_api.h"
#include "webgpu/pipeline_cache.h"
#include "wgrt/error.h"

namespace wgrt::webgpu {

struct DeviceCallbacks {
  static void lost(const WGPUDevice*, WGPUDeviceLostReason reason, WGPUStringView msg, void* u1, void*) {
    auto* d = static_cast<Device*>(u1);
    if (reason == WGPUDeviceLostReason_Destroyed || reason == WGPUDeviceLostReason_CallbackCancelled) return;
    std::lock_guard lock(d->err_mu_);
    d->lost_ = true;
    d->lost_message_ = str(msg);
  }
  static void uncaptured(const WGPUDevice*, WGPUErrorType type, WGPUStringView msg, void* u1, void*) {
    auto* d = static_cast<Device*>(u1);
    std::lock_guard lock(d->err_mu_);
    if (d->pending_error_.empty()) {
      const char* kind = type == WGPUErrorType_Validation    ? "validation error"
                         : type == WGPUErrorType_OutOfMemory ? "out of memory"
                         : type == WGPUErrorType_Internal    ? "internal error"
                                                             : "error";
      d->pending_error_ = fmt::format("WebGPU {}: {}", kind, str(msg));
    }
  }
};

namespace {

// What separates one cache folder from another: the adapter and driver, and the Dawn library file (its path,
// size and modification time), so that an updated driver or library never reads another build's blobs.
std::string cache_isolation_key(const AdapterInfo& a) {
  std::string lib = "dawn";
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&wgpuCreateInstance), &info) && info.dli_fname) {
    std::error_code ec;
    const std::filesystem::path p(info.dli_fname);
    const auto size = std::filesystem::file_size(p, ec);
    const auto time = std::filesystem::last_write_time(p, ec).time_since_epoch().count();
    lib = fmt::format("{} {} {}", info.dli_fname, ec ? 0 : size, ec ? 0 : time);
  }
  return fmt::format("{} | {} {} {:x}:{:x} | {}", a.summary(), a.architecture, a.description, a.vendor_id,
                     a.device_id, lib);
}

size_t cache_load(const void* key, size_t key_size, void* value, size_t value_size, void* user) {
  return static_cast<BlobCache*>(user)->load(key, key_size, value, value_size);
}
void cache_store(const void* key, size_t key_size, const void* value, size_t value_size, void* user) {
  static_cast<BlobCache*>(user)->store(key, key_size, value, value_size);
}

}  // namespace

std::unique_ptr<Device> Device::create(const DeviceOptions& opts) {
  const TuningOverrides overrides = parse_tuning_env();  // a malformed variable fails before any GPU work
  std::unique_ptr<Device> d(new Device());
  d->listing_ = std::make_shared<Instance>();
  d->adapter_ = d->listing_->choose(opts.adapter);
  d->instance_ = d->adapter_.owner ? d->adapter_.owner : d->listing_;
  WGPUAdapter adapter = d->adapter_.handle->get();

  WGPULimits lim{};
  if (wgpuAdapterGetLimits(adapter, &lim) != WGPUStatus_Success) throw GpuError("wgpuAdapterGetLimits failed");
  lim.nextInChain = nullptr;

  std::vector<WGPUFeatureName> features;
  auto want = [&](bool asked, WGPUFeatureName f) {
    if (asked && wgpuAdapterHasFeature(adapter, f)) features.push_back(f);
  };
  want(opts.request_timestamps, WGPUFeatureName_TimestampQuery);
  want(opts.request_f16, WGPUFeatureName_ShaderF16);
  want(opts.request_subgroups, WGPUFeatureName_Subgroups);

  const char* disabled[] = {"timestamp_quantization"};
  WGPUDawnTogglesDescriptor toggles{};
  toggles.chain.sType = WGPUSType_DawnTogglesDescriptor;
  toggles.disabledToggleCount = 1;
  toggles.disabledToggles = disabled;
  // WGRT_DAWN_TOGGLES="a,b": extra Dawn device toggles for debugging (e.g. dump_shaders,disable_symbol_renaming
  // prints every WGSL module and the SPIR-V Tint made of it); Dawn's log then goes to stderr. Dawn ignores names
  // it does not know, without a message.
  std::vector<std::string> extra_toggles;
  std::vector<const char*> extra_ptrs;
  if (const char* e = std::getenv("WGRT_DAWN_TOGGLES")) {
    std::string list(e);
    for (size_t at = 0; at <= list.size();) {
      size_t comma = std::min(list.find(',', at), list.size());
      std::string name = list.substr(at, comma - at);
      name.erase(0, std::min(name.find_first_not_of(" \t"), name.size()));  // names as Dawn spells them, blanks trimmed
      name.erase(name.find_last_not_of(" \t") + 1);
      if (!name.empty()) extra_toggles.push_back(name);
      at = comma + 1;
    }
    for (const std::string& t : extra_toggles) extra_ptrs.push_back(t.c_str());
    toggles.enabledToggleCount = extra_ptrs.size();
    toggles.enabledToggles = extra_ptrs.data();
  }

  WGPUDawnCacheDeviceDescriptor cache{};
  if (opts.disk_cache) {
    const std::filesystem::path dir = opts.cache_dir.empty() ? BlobCache::default_dir() : opts.cache_dir;
    if (!dir.empty()) {
      d->blob_cache_ = std::make_unique<BlobCache>(dir, cache_isolation_key(d->adapter_.info));
      cache.chain.sType = WGPUSType_DawnCacheDeviceDescriptor;
      cache.isolationKey = WGPUStringView{nullptr, 0};  // the folder already isolates
      cache.loadDataFunction = &cache_load;
      cache.storeDataFunction = &cache_store;
      cache.functionUserdata = d->blob_cache_.get();
      toggles.chain.next = &cache.chain;
    }
  }

  WGPUDeviceDescriptor desc{};
  desc.nextInChain = &toggles.chain;
  desc.label = sv("wgrt");
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  desc.requiredLimits = &lim;
  desc.defaultQueue.label = WGPUStringView{nullptr, WGPU_STRLEN};
  desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  desc.deviceLostCallbackInfo.callback = &DeviceCallbacks::lost;
  desc.deviceLostCallbackInfo.userdata1 = d.get();
  desc.uncapturedErrorCallbackInfo.callback = &DeviceCallbacks::uncaptured;
  desc.uncapturedErrorCallbackInfo.userdata1 = d.get();

  struct Result {
    WGPUDevice device = nullptr;
    std::string message;
  };
  AsyncSlot<Result> slot;
  WGPURequestDeviceCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPURequestDeviceStatus status, WGPUDevice dev, WGPUStringView msg, void* u1, void*) {
    auto r = AsyncSlot<Result>::take(u1);
    if (status == WGPURequestDeviceStatus_Success) r->device = dev;
    r->message = str(msg);
  };
  cb.userdata1 = slot.userdata();
  d->instance_->wait(wgpuAdapterRequestDevice(adapter, &desc, cb), "requesting a device");
  const Result& res = *slot.value;
  if (!res.device)
    throw GpuError(fmt::format("device request on '{}' failed: {}", d->adapter_.info.summary(), res.message));
  d->device_ = res.device;
  if (!extra_toggles.empty()) {
    WGPULoggingCallbackInfo log{};
    log.callback = [](WGPULoggingType, WGPUStringView m, void*, void*) {
      std::fprintf(stderr, "dawn: %.*s\n", int(m.length == WGPU_STRLEN ? std::strlen(m.data) : m.length), m.data);
    };
    wgpuDeviceSetLoggingCallback(d->device_, log);
  }
  d->queue_.reset(wgpuDeviceGetQueue(d->device_));
  d->limits_.nextInChain = nullptr;
  if (wgpuDeviceGetLimits(d->device_, &d->limits_) != WGPUStatus_Success) throw GpuError("wgpuDeviceGetLimits failed");
  d->timestamps_ = wgpuDeviceHasFeature(d->device_, WGPUFeatureName_TimestampQuery);
  d->f16_ = wgpuDeviceHasFeature(d->device_, WGPUFeatureName_ShaderF16);
  d->subgroups_ = wgpuDeviceHasFeature(d->device_, WGPUFeatureName_Subgroups);
  d->packed_dot_ = wgpuInstanceHasWGSLLanguageFeature(d->instance_->get(),
                                                      WGPUWGSLLanguageFeatureName_Packed4x8IntegerDotProduct);
  DeviceFacts facts;
  facts.cpu_adapter = d->adapter_.info.type == WGPUAdapterType_CPU;
  facts.vendor_id = d->adapter_.info.vendor_id;
  facts.subgroups = d->subgroups_;
  facts.subgroup_min = d->adapter_.info.subgroup_min;
  facts.subgroup_max = d->adapter_.info.subgroup_max;
  facts.packed_dot = d->packed_dot_;
  facts.max_storage_binding = d->limits_.maxStorageBufferBindingSize;
  facts.max_workgroup_storage = d->limits_.maxComputeWorkgroupStorageSize;
  d->facts_ = facts;
  d->tuning_ = Tuning::for_device(facts, overrides);
  d->pipelines_ = std::make_unique<PipelineCache>(*d);
  return d;
}

Device::~Device() {
  staging_.reset();
  pipelines_.reset();
  // wgpuDeviceDestroy waits for the queue without a limit. After a GPU wait timed out, the work behind it may
  // never finish (a hung kernel): give it one more timeout, and abandon the device (leak it) if it is still busy,
  // so that the error can still reach the user.
  bool abandon = false;
  if (device_ && queue_ && !lost_ && instance_ && instance_->had_timeout()) {
    try {
      wait_idle();
    } catch (const Error&) {
      abandon = true;
    }
  }
  queue_.reset();
  if (device_ && !abandon) {
    wgpuDeviceDestroy(device_);
    wgpuDeviceRelease(device_);
  }
  if (instance_ && !abandon) wgpuInstanceProcessEvents(instance_->get());
}

std::string Device::features_string() const {
  std::string s;
  if (timestamps_) s += "timestamp-query ";
  if (f16_) s += "shader-f16 ";
  if (subgroups_) s += "subgroups ";
  if (!s.empty()) s.pop_back();
  return s.empty() ? "(none)" : s;
}

void Device::check_errors() {
  std::lock_guard lock(err_mu_);
  if (lost_) throw GpuError(fmt::format("WebGPU device lost: {}", lost_message_));
  if (!pending_error_.empty()) {
    std::string e = std::move(pending_error_);
    pending_error_.clear();
    throw GpuError(e);
  }
}

void Device::wait_idle() {
  WGPUQueueWorkDoneCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPUQueueWorkDoneStatus, WGPUStringView, void*, void*) {};
  wait(wgpuQueueOnSubmittedWorkDone(queue(), cb), "waiting for the GPU queue");
  check_errors();
}

PipelineCache& Device::pipelines() { return *pipelines_; }

void Device::retire_readback_staging() { staging_.reset(); }

Buffer& Device::readback_staging(uint64_t bytes) {
  if (!staging_ || staging_->size() < bytes) {
    uint64_t size = 256;
    while (size < bytes) size *= 2;
    staging_ = std::make_unique<Buffer>(*this, size, BufferKind::Readback, "readback staging");
  }
  return *staging_;
}

void Device::on_alloc(int64_t delta) {
  allocated_ = uint64_t(int64_t(allocated_) + delta);
  peak_allocated_ = std::max(peak_allocated_, allocated_);
}

}  // namespace wgrt::webgpu
