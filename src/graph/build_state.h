// Internal state of an ExecutableGraph, shared by the builder (OpBuilder), the resize hooks
// (ResizeContext) and the executor. Not part of the op-facing interface.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "graph/executable.h"
#include "graph/profiler.h"
#include "webgpu/bind_group.h"
#include "webgpu/buffer.h"

namespace wgrt {

struct DispatchRecord {
  const webgpu::Pipeline* pipeline = nullptr;
  std::vector<Binding> bindings;
  webgpu::BindGroupHandle bind_group;
  Grid grid;
  bool active = true;
  int route = -1;
  size_t node = 0;
  std::string kernel;  // "<shader>:<entry>"
};

struct NodeState {
  std::vector<int> dispatches;
  std::vector<int> scratch;  // indices into BuildState::scratch
  std::function<void(ResizeContext&)> resize;
  std::vector<Dims> build_dims;  // dims of tensor args at build (ops without resize hooks)
  // What the resize hook last saw (live dims of the tensor args, symint values, versions of input args):
  // execute() skips the hook while it is unchanged. Cleared when an execute fails.
  std::vector<int64_t> resize_key;
  bool resize_key_valid = false;
};

// A GPU copy into an input at the start of the next execute (ExecutableGraph::feed_input).
struct InputFeed {
  WGPUBuffer src = nullptr, dst = nullptr;
  uint64_t bytes = 0;
};

struct UniformBlock {
  uint64_t offset = 0;  // in the uniform arena
  size_t bytes = 0;     // the host struct's size rounded up to 16
  const UniformLayout* layout = nullptr;  // the host struct (OpBuilder::uniform<T>)
};

struct ScratchRequest {
  uint64_t bytes = 0;
  int slot = 0;  // pool slot: k-th request of its node
  std::string what;
};

class BuildState {
 public:
  BuildState(Graph g, webgpu::Device& d) : graph(std::move(g)), dev(d) {}
  Graph graph;
  webgpu::Device& dev;
  std::vector<NodeState> nodes;
  std::vector<DispatchRecord> dispatches;
  std::vector<UniformBlock> uniforms;
  std::vector<uint8_t> uniform_host;
  size_t uniforms_laid_out = 0;
  bool uniform_dirty = true;
  std::vector<ScratchRequest> scratch;
  const OpDef* current_op = nullptr;  // the op whose build() is running (OpBuilder checks its kernel list)

  // Buffers: tensor_buffer[value id] -> index into buffers (-1 for non-tensors); scratch_buffer[slot].
  std::vector<webgpu::Buffer> buffers;
  std::vector<int> tensor_buffer;
  std::vector<int> scratch_buffer;
  webgpu::Buffer uniform_arena;
  std::map<ValueId, std::vector<int32_t>> input_host;  // host copies of i32 inputs (select_as_symint)
  std::map<ValueId, ValueId> alias_of;  // view output -> the tensor whose buffer it shares (OpBuilder::alias)
  std::vector<uint64_t> input_version;  // per value id: bumped by every set_input / feed_input of that input
  std::vector<InputFeed> feeds;         // consumed by the next execute
  std::shared_ptr<std::vector<webgpu::Buffer>> read_pool = std::make_shared<std::vector<webgpu::Buffer>>();
  std::unique_ptr<Profiler> profiler;
  MemoryStats stats;

  TensorValue& tensor(ValueId id) { return graph.tensor_at(id); }
  uint64_t uniform_alignment() const;
};

}  // namespace wgrt
