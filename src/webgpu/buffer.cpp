#include "webgpu/buffer.h"

#include <fmt/format.h>

#include <cstring>

#include "wgrt/error.h"

namespace wgrt::webgpu {

namespace {
WGPUBufferUsage usage_of(BufferKind k) {
  switch (k) {
    case BufferKind::Storage: return WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc;
    case BufferKind::Uniform: return WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst;
    case BufferKind::Readback: return WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    case BufferKind::Query: return WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
  }
  return 0;
}
std::string mib(uint64_t b) { return fmt::format("{:.1f} MiB", double(b) / (1024.0 * 1024.0)); }
}  // namespace

Buffer::Buffer(Device& dev, uint64_t bytes, BufferKind kind, std::string label) : dev_(&dev), label_(std::move(label)) {
  uint64_t rounded = std::max<uint64_t>(16, (bytes + 15) / 16 * 16);
  if (rounded < bytes) throw LimitError(fmt::format("buffer '{}': size {} overflows", label_, bytes));
  uint64_t limit = dev.limits().maxBufferSize;
  if (rounded > limit)
    throw LimitError(fmt::format("buffer '{}' needs {} bytes ({}), above the device's maxBufferSize {} ({})", label_,
                                 bytes, mib(bytes), limit, mib(limit)));
  WGPUBufferDescriptor d{};
  d.label = sv(label_);
  d.usage = usage_of(kind);
  d.size = rounded;
  buf_ = wgpuDeviceCreateBuffer(dev.get(), &d);
  if (!buf_) throw GpuError(fmt::format("could not create buffer '{}' ({} bytes)", label_, rounded));
  size_ = rounded;
  dev.on_alloc(int64_t(size_));
  dev.check_errors();  // out-of-memory is reported as an uncaptured error
}

void Buffer::release() {
  if (buf_) {
    wgpuBufferDestroy(buf_);
    wgpuBufferRelease(buf_);
    dev_->on_alloc(-int64_t(size_));
  }
  buf_ = nullptr;
  size_ = 0;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept
    : dev_(o.dev_), buf_(std::exchange(o.buf_, nullptr)), size_(std::exchange(o.size_, 0)), label_(std::move(o.label_)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    dev_ = o.dev_;
    buf_ = std::exchange(o.buf_, nullptr);
    size_ = std::exchange(o.size_, 0);
    label_ = std::move(o.label_);
  }
  return *this;
}

void Buffer::write(const void* data, uint64_t bytes, uint64_t offset) {
  if (offset % 4) throw InvalidArgument(fmt::format("buffer '{}': write offset {} is not a multiple of 4", label_, offset));
  if (offset + bytes > size_ || offset + bytes < offset)
    throw InvalidArgument(fmt::format("buffer '{}': write of {} bytes at {} exceeds its size {}", label_, bytes, offset, size_));
  uint64_t head = bytes / 4 * 4;
  if (head) wgpuQueueWriteBuffer(dev_->queue(), buf_, offset, data, head);
  if (bytes > head) {
    uint8_t tail[4] = {0, 0, 0, 0};
    std::memcpy(tail, static_cast<const uint8_t*>(data) + head, bytes - head);
    wgpuQueueWriteBuffer(dev_->queue(), buf_, offset + head, tail, 4);
  }
  dev_->check_errors();
}

void Buffer::read(void* dst, uint64_t bytes, uint64_t offset) const {
  if (offset + bytes > size_ || offset + bytes < offset)
    throw InvalidArgument(fmt::format("buffer '{}': read of {} bytes at {} exceeds its size {}", label_, bytes, offset, size_));
  read_buffer(*dev_, buf_, offset, dst, bytes);
}

void read_buffer(Device& dev, WGPUBuffer src, uint64_t src_offset, void* dst, uint64_t bytes) {
  if (bytes == 0) return;
  uint64_t begin = src_offset / 4 * 4;
  uint64_t end = (src_offset + bytes + 3) / 4 * 4;
  uint64_t span = end - begin;
  Buffer& staging = dev.readback_staging(span);
  CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(dev.get(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(enc.get(), src, begin, staging.get(), 0, span);
  CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer c = cmd.get();
  wgpuQueueSubmit(dev.queue(), 1, &c);
  dev.check_errors();

  struct MapResult {
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
    std::string message;
  };
  AsyncSlot<MapResult> res;
  WGPUBufferMapCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView msg, void* u1, void*) {
    auto r = AsyncSlot<MapResult>::take(u1);
    r->status = status;
    r->message = str(msg);
  };
  cb.userdata1 = res.userdata();
  uint64_t map_size = (span + 3) / 4 * 4;
  try {
    dev.wait(wgpuBufferMapAsync(staging.get(), WGPUMapMode_Read, 0, map_size, cb), "reading a buffer back");
  } catch (const GpuError&) {
    // A timed-out map stays pending: cancel it and retire the staging buffer so later reads still work.
    wgpuBufferUnmap(staging.get());
    dev.retire_readback_staging();
    throw;
  }
  dev.check_errors();
  if (res.value->status != WGPUMapAsyncStatus_Success)
    throw GpuError(fmt::format("buffer readback failed: {}", res.value->message));
  const void* p = wgpuBufferGetConstMappedRange(staging.get(), 0, map_size);
  if (!p) throw GpuError("buffer readback: mapped range unavailable");
  std::memcpy(dst, static_cast<const uint8_t*>(p) + (src_offset - begin), bytes);
  wgpuBufferUnmap(staging.get());
}

}  // namespace wgrt::webgpu
