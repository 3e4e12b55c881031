// ExecutableGraph's inputs and outputs: set_input, feed_input (GPU-side copies into inputs), blocking reads
// and asynchronous i32 reads (PendingRead). See executable.h.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "graph/build_state.h"
#include "graph/executable.h"
#include "util/half.h"
#include "wgrt/error.h"

namespace wgrt {

namespace {
// `t` must be a graph input and `dims` of its rank, within its max dims.
void check_input_dims(const TensorValue& t, const Dims& dims) {
  if (t.role != TensorRole::Input) throw InvalidArgument(fmt::format("tensor '{}' is not a graph input", t.name));
  if (dims.size() != t.max_dims.size())
    throw InvalidArgument(fmt::format("input '{}': rank {} given, the graph takes rank {} (max dims {})", t.name,
                                      dims.size(), t.max_dims.size(), dims_str(t.max_dims)));
  for (size_t k = 0; k < dims.size(); ++k)
    if (dims[k] < 0 || dims[k] > t.max_dims[k])
      throw LimitError(fmt::format("input '{}': dims {} exceed the max dims {} the graph was built for", t.name,
                                   dims_str(dims), dims_str(t.max_dims)));
}
}  // namespace

void ExecutableGraph::write_input(ValueId id, const Dims& dims, const void* data, size_t bytes, std::vector<int32_t> host) {
  TensorValue& t = s_->graph.tensor_at(id);
  check_input_dims(t, dims);
  Dims old = t.dims;
  t.dims = dims;
  if (bytes != t.live_bytes()) {
    t.dims = old;
    throw InvalidArgument(fmt::format("input '{}': {} bytes of data for {} {}", t.name, bytes, dtype_name(t.dtype), dims_str(dims)));
  }
  if (bytes) s_->buffers[size_t(s_->tensor_buffer[size_t(id)])].write(data, bytes);
  if (t.dtype == DType::I32) s_->input_host[id] = std::move(host);
  s_->input_version[size_t(id)]++;
}

void ExecutableGraph::set_input(ValueId id, const Dims& dims, std::span<const float> data) {
  const TensorValue& t = s_->graph.tensor_at(id);
  if (t.dtype != DType::F32) throw InvalidArgument(fmt::format("input '{}' is {}, f32 data given", t.name, dtype_name(t.dtype)));
  write_input(id, dims, data.data(), data.size_bytes(), {});
}

void ExecutableGraph::set_input(ValueId id, const Dims& dims, std::span<const int32_t> data) {
  const TensorValue& t = s_->graph.tensor_at(id);
  if (t.dtype != DType::I32) throw InvalidArgument(fmt::format("input '{}' is {}, int32 data given", t.name, dtype_name(t.dtype)));
  write_input(id, dims, data.data(), data.size_bytes(), std::vector<int32_t>(data.begin(), data.end()));
}

void ExecutableGraph::set_input(ValueId id, const Dims& dims, std::span<const int64_t> data) {
  const TensorValue& t = s_->graph.tensor_at(id);
  if (t.dtype != DType::I32) throw InvalidArgument(fmt::format("input '{}' is {}, int64 data given", t.name, dtype_name(t.dtype)));
  std::vector<int32_t> narrow(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] < std::numeric_limits<int32_t>::min() || data[i] > std::numeric_limits<int32_t>::max())
      throw InvalidArgument(fmt::format("input '{}': element {} = {} does not fit in int32", t.name, i, data[i]));
    narrow[i] = int32_t(data[i]);
  }
  write_input(id, dims, narrow.data(), narrow.size() * 4, narrow);
}

void ExecutableGraph::feed_input(ValueId input, const Dims& dims, ValueId source) {
  TensorValue& t = s_->graph.tensor_at(input);
  const TensorValue& src = s_->graph.tensor_at(source);
  check_input_dims(t, dims);
  if (src.dtype != t.dtype)
    throw InvalidArgument(fmt::format("feed '{}' -> '{}': {} into {}", src.name, t.name, dtype_name(src.dtype), dtype_name(t.dtype)));
  Dims old = t.dims;
  t.dims = dims;
  const uint64_t bytes = t.live_bytes();
  if (bytes != src.live_bytes()) {
    t.dims = old;
    throw InvalidArgument(fmt::format("feed '{}' -> '{}': {} has {} bytes, {} takes {}", src.name, t.name,
                                      dims_str(src.dims), src.live_bytes(), dims_str(dims), bytes));
  }
  if (bytes % 4) {
    t.dims = old;
    throw InvalidArgument(fmt::format("feed into '{}': {} bytes is not a multiple of 4", t.name, bytes));
  }
  if (bytes)
    s_->feeds.push_back({s_->buffers[size_t(s_->tensor_buffer[size_t(source)])].get(),
                         s_->buffers[size_t(s_->tensor_buffer[size_t(input)])].get(), bytes});
  s_->input_host.erase(input);  // its contents now live on the GPU only
  s_->input_version[size_t(input)]++;
}

void ExecutableGraph::feed_input(ValueId input, const Dims& dims, const webgpu::Buffer& source, uint64_t bytes) {
  TensorValue& t = s_->graph.tensor_at(input);
  check_input_dims(t, dims);
  Dims old = t.dims;
  t.dims = dims;
  if (bytes != t.live_bytes() || bytes > source.size() || bytes % 4) {
    t.dims = old;
    throw InvalidArgument(fmt::format("feed into '{}': {} bytes given ({}-byte buffer), {} {} takes {}", t.name, bytes,
                                      source.size(), dtype_name(t.dtype), dims_str(dims), t.live_bytes()));
  }
  if (bytes) s_->feeds.push_back({source.get(), s_->buffers[size_t(s_->tensor_buffer[size_t(input)])].get(), bytes});
  s_->input_host.erase(input);
  s_->input_version[size_t(input)]++;
}

webgpu::Buffer ExecutableGraph::copy_out(ValueId id) const {
  const TensorValue& t = s_->graph.tensor_at(id);
  const uint64_t bytes = (t.live_bytes() + 3) / 4 * 4;
  webgpu::Buffer out(s_->dev, std::max<uint64_t>(bytes, 4), webgpu::BufferKind::Storage, t.name + " (copied out)");
  if (bytes) {
    webgpu::CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(s_->dev.get(), nullptr));
    wgpuCommandEncoderCopyBufferToBuffer(enc.get(), s_->buffers[size_t(s_->tensor_buffer[size_t(id)])].get(), 0, out.get(), 0, bytes);
    webgpu::CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
    WGPUCommandBuffer c = cmd.get();
    wgpuQueueSubmit(s_->dev.queue(), 1, &c);
    s_->dev.check_errors();
  }
  return out;
}

void ExecutableGraph::copy_within(std::span<const StateCopy> copies) {
  for (const StateCopy& c : copies) {
    const TensorValue& t = s_->graph.tensor_at(c.id);
    if (t.role != TensorRole::State) throw InvalidArgument(fmt::format("copy_within: '{}' is not a state tensor", t.name));
    const uint64_t max = t.max_bytes();
    if ((c.src | c.dst | c.bytes) % 4 || c.src > max || c.dst > max || c.bytes > max - std::max(c.src, c.dst) ||
        (c.src < c.dst + c.bytes && c.dst < c.src + c.bytes && c.bytes))
      throw InvalidArgument(fmt::format("copy_within '{}': {} bytes from {} to {} do not fit its {} bytes apart (multiples of 4)",
                                        t.name, c.bytes, c.src, c.dst, max));
  }
  uint64_t most = 0;
  for (const StateCopy& c : copies) most = std::max(most, c.bytes);
  if (!most) return;
  // WebGPU copies between two buffers only: through one scratch buffer (the copies of an encoder run in order).
  webgpu::Buffer tmp(s_->dev, most, webgpu::BufferKind::Storage, "copy_within scratch");
  webgpu::CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(s_->dev.get(), nullptr));
  for (const StateCopy& c : copies) {
    if (!c.bytes) continue;
    WGPUBuffer b = s_->buffers[size_t(s_->tensor_buffer[size_t(c.id)])].get();
    wgpuCommandEncoderCopyBufferToBuffer(enc.get(), b, c.src, tmp.get(), 0, c.bytes);
    wgpuCommandEncoderCopyBufferToBuffer(enc.get(), tmp.get(), 0, b, c.dst, c.bytes);
  }
  webgpu::CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer cb = cmd.get();
  wgpuQueueSubmit(s_->dev.queue(), 1, &cb);
  s_->dev.check_errors();
}

void ExecutableGraph::set_symint(ValueId id, int64_t value) {
  auto* x = std::get_if<SymIntValue>(&s_->graph.values().at(size_t(id)));
  if (!x) throw InvalidArgument(fmt::format("value {} is not a symint", id));
  x->value = value;
}

std::vector<float> ExecutableGraph::read_f32(ValueId id) const {
  const TensorValue& t = s_->graph.tensor_at(id);
  if (t.dtype == DType::F16) {  // widened exactly; the buffer holds whole 4-byte words
    std::vector<uint16_t> h((size_t(numel(t.dims)) + 1) / 2 * 2);
    if (!h.empty()) webgpu::read_buffer(s_->dev, s_->buffers[size_t(s_->tensor_buffer[size_t(id)])].get(), 0, h.data(), h.size() * 2);
    std::vector<float> v(size_t(numel(t.dims)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = f16_to_f32(h[i]);
    return v;
  }
  if (t.dtype != DType::F32) throw InvalidArgument(fmt::format("tensor '{}' is {}, not f32 or f16", t.name, dtype_name(t.dtype)));
  std::vector<float> v(size_t(numel(t.dims)));
  if (!v.empty()) webgpu::read_buffer(s_->dev, s_->buffers[size_t(s_->tensor_buffer[size_t(id)])].get(), 0, v.data(), v.size() * 4);
  return v;
}

std::vector<int32_t> ExecutableGraph::read_i32(ValueId id) const {
  const TensorValue& t = s_->graph.tensor_at(id);
  if (t.dtype != DType::I32) throw InvalidArgument(fmt::format("tensor '{}' is {}, not i32", t.name, dtype_name(t.dtype)));
  std::vector<int32_t> v(size_t(numel(t.dims)));
  if (!v.empty()) webgpu::read_buffer(s_->dev, s_->buffers[size_t(s_->tensor_buffer[size_t(id)])].get(), 0, v.data(), v.size() * 4);
  return v;
}

struct PendingRead::State {
  webgpu::Device* dev = nullptr;
  webgpu::Buffer staging;
  std::shared_ptr<std::vector<webgpu::Buffer>> pool;  // the staging buffer goes back here after the read
  WGPUFuture future{};
  size_t count = 0;
  std::shared_ptr<WGPUMapAsyncStatus> status;
};

PendingRead::PendingRead(PendingRead&&) noexcept = default;
PendingRead& PendingRead::operator=(PendingRead&&) noexcept = default;
// An abandoned read: destroying the staging buffer cancels its map (the callback owns its status slot).
PendingRead::~PendingRead() = default;

std::vector<int32_t> PendingRead::wait() {
  if (!state_) throw InvalidArgument("PendingRead::wait: no read pending");
  std::unique_ptr<State> st = std::move(state_);
  st->dev->wait(st->future, "reading a tensor back");
  if (*st->status != WGPUMapAsyncStatus_Success) {
    st->staging = {};
    throw GpuError("mapping a read-back buffer failed (device lost?)");
  }
  std::vector<int32_t> v(st->count);
  const void* p = wgpuBufferGetConstMappedRange(st->staging.get(), 0, (st->count * 4 + 3) / 4 * 4);
  if (!p) throw GpuError("read-back buffer could not be mapped");
  if (!v.empty()) std::memcpy(v.data(), p, v.size() * 4);
  wgpuBufferUnmap(st->staging.get());
  st->pool->push_back(std::move(st->staging));
  return v;
}

PendingRead ExecutableGraph::read_i32_async(ValueId id) const {
  const TensorValue& t = s_->graph.tensor_at(id);
  if (t.dtype != DType::I32) throw InvalidArgument(fmt::format("tensor '{}' is {}, not i32", t.name, dtype_name(t.dtype)));
  auto st = std::make_unique<PendingRead::State>();
  st->dev = &s_->dev;
  st->pool = s_->read_pool;
  st->count = size_t(numel(t.dims));
  const uint64_t bytes = std::max<uint64_t>(16, (st->count * 4 + 15) / 16 * 16);
  auto& pool = *s_->read_pool;
  for (size_t i = 0; i < pool.size(); ++i)
    if (pool[i].size() >= bytes) {
      st->staging = std::move(pool[i]);
      pool.erase(pool.begin() + long(i));
      break;
    }
  if (!st->staging) st->staging = webgpu::Buffer(s_->dev, bytes, webgpu::BufferKind::Readback, "async read-back");
  webgpu::CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(s_->dev.get(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(enc.get(), s_->buffers[size_t(s_->tensor_buffer[size_t(id)])].get(), 0,
                                       st->staging.get(), 0, bytes);
  webgpu::CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer c = cmd.get();
  wgpuQueueSubmit(s_->dev.queue(), 1, &c);
  st->status = std::make_shared<WGPUMapAsyncStatus>(WGPUMapAsyncStatus_Error);
  WGPUBufferMapCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* u1, void*) {
    auto r = webgpu::AsyncSlot<WGPUMapAsyncStatus>::take(u1);
    *r = status;
  };
  webgpu::AsyncSlot<WGPUMapAsyncStatus> slot{st->status};
  cb.userdata1 = slot.userdata();
  st->future = wgpuBufferMapAsync(st->staging.get(), WGPUMapMode_Read, 0, bytes, cb);
  s_->dev.check_errors();
  PendingRead r;
  r.state_ = std::move(st);
  return r;
}

}  // namespace wgrt
