// A WebGPU device on one adapter: full adapter limits, optional features negotiated, errors as exceptions.
//
// - The device is requested with the adapter's own limits (not WebGPU's low defaults) and with the optional
//   features timestamp-query, shader-f16 and subgroups when the adapter offers them; what was granted is
//   queryable (has_f16() ...). Dawn's `timestamp_quantization` toggle is disabled so GPU times are exact.
// - Device-lost and uncaptured errors become wgrt::GpuError with Dawn's message: uncaptured errors are
//   raised by the next check_errors() (every wgrt call that submits or creates objects calls it).
// - One thread drives a device (Dawn's default); Device objects are not copyable or movable.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "webgpu/handle.h"
#include "webgpu/instance.h"
#include "webgpu/tuning.h"

namespace wgrt::webgpu {

class PipelineCache;
class Buffer;
class BlobCache;

struct DeviceOptions {
  std::string adapter;          // adapter spec (see instance.h); empty: WGRT_ADAPTER or the best adapter
  bool request_f16 = true;      // ask for shader-f16 when offered
  bool request_subgroups = true;
  bool request_timestamps = true;
  // Disk cache of Dawn's compiled shaders and pipelines (blob_cache.h): `cache_dir` empty means
  // BlobCache::default_dir() ($WGRT_CACHE_DIR, "off" disables; else $XDG_CACHE_HOME/wgrt or ~/.cache/wgrt).
  bool disk_cache = true;
  std::filesystem::path cache_dir;
};

class Device {
 public:
  // Throws InvalidArgument (no matching adapter, with the list; a malformed WGRT_* tuning variable) or GpuError
  // (device request failed).
  static std::unique_ptr<Device> create(const DeviceOptions& opts = {});
  // Destroys the device. After any GPU wait of this process timed out, it first waits once more (the same
  // limit) for the queue; if the GPU is still busy, the device is abandoned (its memory stays allocated until
  // the process ends) instead of waiting forever on a hung kernel.
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  WGPUDevice get() const { return device_; }
  WGPUQueue queue() const { return queue_.get(); }
  // The instance this device's adapter belongs to (futures are waited on through it).
  Instance& instance() const { return *instance_; }
  // Every adapter found when this device was chosen (Instance::adapters() of the listing instance).
  const std::vector<Adapter>& adapters() const { return listing_->adapters(); }
  const AdapterInfo& adapter_info() const { return adapter_.info; }
  const WGPULimits& limits() const { return limits_; }
  bool has_f16() const { return f16_; }
  bool has_subgroups() const { return subgroups_; }
  bool has_timestamps() const { return timestamps_; }
  // WGSL's packed_4x8_integer_dot_product language feature (dot4I8Packed, pack4xI8, ...): Tint emits SPIR-V
  // OpSDot where the Vulkan driver has VK_KHR_shader_integer_dot_product, a polyfill elsewhere.
  bool has_packed_dot() const { return packed_dot_; }
  std::string features_string() const;  // "timestamp-query shader-f16 subgroups" (granted ones)

  // The tuning policy (tuning.h): built at creation from the adapter and the WGRT_* overrides. set_tuning
  // replaces it (tests, tools); ops read it at build, so graphs built afterwards use the new one.
  const Tuning& tuning() const { return tuning_; }
  const DeviceFacts& facts() const { return facts_; }  // what the policy was built from
  void set_tuning(const Tuning& t) { tuning_ = t; }

  // Throws GpuError if the device was lost or an uncaptured error happened since the last check.
  void check_errors();

  // Waits until all submitted work is done (throws GpuError on timeout or loss).
  void wait_idle();
  void wait(WGPUFuture f, const char* what) const { instance_->wait(f, what); }

  PipelineCache& pipelines();
  // The disk cache Dawn uses (null when off or its folder could not be made).
  const BlobCache* blob_cache() const { return blob_cache_.get(); }

  // A MapRead staging buffer of at least `bytes`, reused across reads (grown to a power of two).
  Buffer& readback_staging(uint64_t bytes);
  void retire_readback_staging();  // after a failed map: the next read gets a fresh staging buffer

  // Bytes of GPU buffers currently allocated through wgrt (Buffer tracks this).
  uint64_t allocated_bytes() const { return allocated_; }
  uint64_t peak_allocated_bytes() const { return peak_allocated_; }
  void on_alloc(int64_t delta);

 private:
  Device() = default;
  std::unique_ptr<BlobCache> blob_cache_;  // Dawn may call it until wgpuDeviceDestroy (in ~Device's body)
  std::shared_ptr<Instance> instance_;
  std::shared_ptr<Instance> listing_;
  Adapter adapter_;
  WGPUDevice device_ = nullptr;
  QueueHandle queue_;
  WGPULimits limits_{};
  bool f16_ = false, subgroups_ = false, timestamps_ = false, packed_dot_ = false;
  DeviceFacts facts_;
  Tuning tuning_;
  std::unique_ptr<PipelineCache> pipelines_;
  std::unique_ptr<Buffer> staging_;
  uint64_t allocated_ = 0, peak_allocated_ = 0;

  // Filled by Dawn callbacks (uncaptured errors arrive synchronously on the calling thread).
  std::mutex err_mu_;
  std::string pending_error_;
  bool lost_ = false;
  std::string lost_message_;
  friend struct DeviceCallbacks;
};

// Installs a tuning policy on a device for its lifetime, then restores the previous one (tests, benchmarks):
//   webgpu::Tuning t = dev.tuning(); t.sdpa_split_min_context = 1; webgpu::ScopedTuning s(dev, t);
class ScopedTuning {
 public:
  ScopedTuning(Device& dev, const Tuning& t) : dev_(dev), saved_(dev.tuning()) { dev.set_tuning(t); }
  ~ScopedTuning() { dev_.set_tuning(saved_); }
  ScopedTuning(const ScopedTuning&) = delete;
  ScopedTuning& operator=(const ScopedTuning&) = delete;

 private:
  Device& dev_;
  Tuning saved_;
};

}  // namespace wgrt::webgpu
