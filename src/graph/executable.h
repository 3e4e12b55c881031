// ExecutableGraph: a Graph compiled for one device, executed many times (prefill, then decode steps)
// without rebuilding.
//
// build():
//   - checks every node's op exists (error names op and node) and runs the op's build function, which
//     validates arguments and declares its dispatches; the op's resize hook then runs at max shapes;
//   - plans memory: intermediates with disjoint lifetimes share buffers (memory_plan.h); inputs, outputs,
//     constants (uploaded once) and states (zeroed) get their own; scratch buffers of fused ops come from a
//     pool shared by all nodes (slot k of every node shares one buffer sized for the largest request);
//   - creates pipelines (cached), one uniform arena for all parameter blocks, and every bind group.
// execute():
//   - SymInts and live dims are recomputed by the resize hooks in node order, repeated until nothing changes
//     (a bounded fix-point: at most 4 passes); an op without a resize hook whose input dims differ from its
//     build-time dims is an error naming the op;
//   - all dispatches are recorded into one command encoder in graph order and submitted once. Ordering:
//     WebGPU makes each dispatch its own usage scope, so a dispatch sees the storage writes of every earlier
//     dispatch in the same pass (Dawn inserts the barriers); tests/core/graph_test.cpp checks a chain of 32
//     dependent dispatches. With profiling on, each dispatch gets its own pass (for timestamps).
// Errors (bad input dims/dtype/rank, context overflow from a resize hook) throw before anything is
// submitted; the graph stays usable and the next execute recomputes every live shape from its inputs.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/profiler.h"
#include "webgpu/device.h"

namespace wgrt {

class BuildState;
class OpRegistry;

struct MemoryStats {
  uint64_t constant_bytes = 0;    // weights
  uint64_t state_bytes = 0;       // KV caches
  uint64_t io_bytes = 0;          // inputs and outputs
  uint64_t intermediate_requested = 0;  // one buffer per intermediate would take this
  uint64_t intermediate_planned = 0;    // after sharing
  uint64_t scratch_bytes = 0;
  size_t intermediate_buffers = 0;
  size_t scratch_buffers = 0;
  size_t scratch_requests = 0;
  uint64_t total() const { return constant_bytes + state_bytes + io_bytes + intermediate_planned + scratch_bytes; }
};

class ExecutableGraph {
 public:
  // Compiles `graph` for `dev` (which must outlive the result). Throws InvalidArgument / LimitError /
  // GpuError naming the node and op at fault.
  // `ops` defaults to the built-in registry (tests may pass one with extra ops).
  static std::unique_ptr<ExecutableGraph> build(Graph graph, webgpu::Device& dev, const OpRegistry* ops = nullptr);
  ~ExecutableGraph();

  // Sets an input's live dims and data. The rank must equal the declared rank and every dim must be <= its
  // max; dtype must match (host int64 data for an i32 input is narrowed with a range check). Throws
  // InvalidArgument / LimitError; on error nothing changes.
  void set_input(ValueId id, const Dims& dims, std::span<const float> data);
  void set_input(ValueId id, const Dims& dims, std::span<const int32_t> data);
  void set_input(ValueId id, const Dims& dims, std::span<const int64_t> data);

  // Runs the graph: resize, encode, one submit. Does not wait for the GPU (reads do).
  void execute();

  // Reads a tensor's live contents (waits for the GPU). For f32 / i32 tensors respectively.
  std::vector<float> read_f32(ValueId id) const;
  std::vector<int32_t> read_i32(ValueId id) const;
  const Dims& dims(ValueId id) const;
  int64_t symint(ValueId id) const;

  // Profiling (see profiler.h). enable_profiling throws Unsupported without timestamp-query.
  void enable_profiling(bool on);
  Profiler* profiler() const;

  MemoryStats memory() const;
  size_t dispatch_count(bool active_only = true) const;
  const Graph& graph() const;
  std::string dump() const;  // graph dump plus buffers and dispatches
  webgpu::Device& device() const;

 private:
  explicit ExecutableGraph(std::unique_ptr<BuildState> s);
  void write_input(ValueId id, const Dims& dims, const void* data, size_t bytes, std::vector<int32_t> host);
  std::unique_ptr<BuildState> s_;
};

}  // namespace wgrt
