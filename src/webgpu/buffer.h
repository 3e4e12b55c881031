// GPU buffers with RAII (destroy + release), size checks against device limits, upload and readback.
//
// Sizes are in bytes. Allocations are rounded up to a multiple of 16 bytes (so vec4 loads and 4-byte copy
// rules always hold) and checked against maxBufferSize: too large -> LimitError naming the buffer's label,
// the size and the limit, instead of a Dawn validation failure later. Binding-size checks
// (maxStorageBufferBindingSize) happen where bind groups are made (bind_group.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "webgpu/device.h"

namespace wgrt::webgpu {

enum class BufferKind {
  Storage,   // Storage | CopyDst | CopySrc: tensors, weights, scratch
  Uniform,   // Uniform | CopyDst: small parameter blocks
  Readback,  // MapRead | CopyDst: staging for reads
  Query,     // QueryResolve | CopySrc: timestamp resolve target
};

class Buffer {
 public:
  Buffer() = default;
  Buffer(Device& dev, uint64_t bytes, BufferKind kind, std::string label);
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  WGPUBuffer get() const { return buf_; }
  uint64_t size() const { return size_; }  // allocated bytes (rounded)
  const std::string& label() const { return label_; }
  explicit operator bool() const { return buf_ != nullptr; }

  // Queue write of `bytes` at byte `offset` (offset must be a multiple of 4; a ragged tail is zero-padded).
  void write(const void* data, uint64_t bytes, uint64_t offset = 0);
  // Blocking read of `bytes` from byte `offset` (any alignment); waits for all submitted work first.
  void read(void* dst, uint64_t bytes, uint64_t offset = 0) const;

  template <typename T>
  std::vector<T> read_vector(size_t count, uint64_t offset = 0) const {
    std::vector<T> v(count);
    read(v.data(), count * sizeof(T), offset);
    return v;
  }
  template <typename T>
  void write_vector(const std::vector<T>& v, uint64_t offset = 0) {
    write(v.data(), v.size() * sizeof(T), offset);
  }

 private:
  void release();
  Device* dev_ = nullptr;
  WGPUBuffer buf_ = nullptr;
  uint64_t size_ = 0;
  std::string label_;
};

// Copies [src_offset, src_offset+bytes) of a GPU buffer to host memory through a MapRead staging buffer.
void read_buffer(Device& dev, WGPUBuffer src, uint64_t src_offset, void* dst, uint64_t bytes);

}  // namespace wgrt::webgpu
