// OnnxModel's inputs and outputs (onnx_model.cpp): checking the caller's tensors against the model, the
// compiled-graph key, the symbolic-dim bounds, and GPU-resident tensors (OnnxTensor::gpu) for chaining.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "formats/onnx/onnx_file.h"
#include "graph/executable.h"
#include "models/onnx_graph/host_tensor.h"
#include "models/onnx_graph/onnx_graph.h"
#include "webgpu/buffer.h"
#include "webgpu/device.h"
#include "wgrt/onnx.h"

namespace wgrt {

// A float32 tensor's data on the GPU (OnnxTensor::gpu): its own buffer; holds the device alive.
struct OnnxGpuData {
  std::shared_ptr<webgpu::Device> dev;  // declared first: released after the buffer
  webgpu::Buffer buf;
  size_t count = 0;  // float elements
};

namespace onnx_io {

OnnxValueInfo info(const onnx::ValueInfo& v);
const OnnxTensor* find(const std::vector<OnnxTensor>& in, const std::string& name);

// Checks the caller's inputs against the model (names, element types, data lengths; GPU tensors are float32
// with as many elements as their dims); returns them as host tensors. Float data is left out except for the
// inputs in `host_floats` (a GPU one is read back for those). Throws InvalidArgument / Unsupported.
std::map<std::string, onnx::HostTensor> bind(const onnx::Model& m, const std::vector<OnnxTensor>& in,
                                             const std::set<std::string>& host_floats);
// The compiled-graph key: every input's dims, and the values of those with host data.
std::string key_of(const std::map<std::string, onnx::HostTensor>& in);

// Checks the bounds' names (symbolic dims of the model's inputs) and values (>= 1); returns whether every
// symbolic dim of the float inputs has one (the model is then bounded).
bool check_bounds(const onnx::Model& m, const std::map<std::string, int64_t>& bounds);
// "" when every bounded dim of `in` is within its bound. Otherwise, with `compile_ok` the reason; without it
// throws InvalidArgument naming the input, the dim, its size and the bound. Inputs in `host_floats` (folded on
// the host, so not on the shared graph) give a reason too.
std::string above_bounds(const onnx::Model& m, const std::map<std::string, int64_t>& bounds,
                         const std::map<std::string, onnx::HostTensor>& in, const std::set<std::string>& host_floats, bool compile_ok);
// `in` with every device float input's symbolic dims at their bounds.
std::map<std::string, onnx::HostTensor> max_inputs(const onnx::Model& m, const std::map<std::string, int64_t>& bounds,
                                                   std::map<std::string, onnx::HostTensor> in, const std::set<std::string>& host_floats);

// An output port's tensor after execute: host outputs as computed at import; device ones read back, or, with
// `gpu_dev`, copied into a GPU tensor of their own.
OnnxTensor output(const onnx::Port& p, const ExecutableGraph& exe, const std::shared_ptr<webgpu::Device>& gpu_dev);
// A GPU tensor's buffer, which must live on `dev` (else InvalidArgument naming the tensor).
const webgpu::Buffer& buffer(const OnnxTensor& t, const webgpu::Device& dev);
std::vector<float> read(const OnnxTensor& t);

}  // namespace onnx_io
}  // namespace wgrt
