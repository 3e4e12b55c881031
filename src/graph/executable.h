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
//     (a bounded fix-point: at most 4 passes); a node's hook runs only when what it reads changed since its
//     last run (live dims of its tensor args, its symint values, a new set_input of an input arg), so a decode
//     step re-runs only the hooks that depend on the position; an op without a resize hook whose input dims
//     differ from its build-time dims is an error naming the op;
//   - pending input feeds (feed_input) are copied on the GPU first, then all dispatches are recorded in graph
//     order into one compute pass and submitted; with Tuning::submit_chunk > 0 the pass is cut every that many
//     dispatches and each chunk submitted as soon as it is recorded (the GPU starts while the CPU still
//     records). Ordering:
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
#include "webgpu/buffer.h"
#include "webgpu/device.h"

namespace wgrt {

class BuildState;
class OpRegistry;

// A read-back in flight (ExecutableGraph::read_i32_async): the copy is queued behind every execute submitted
// before it, so it sees that execute's result even if later executes overwrite the tensor. Move-only; wait()
// once. Must not outlive the graph's device. Called from the thread that drives the device.
class PendingRead {
 public:
  PendingRead() = default;
  PendingRead(PendingRead&&) noexcept;
  PendingRead& operator=(PendingRead&&) noexcept;
  ~PendingRead();
  // Waits for the GPU and returns the tensor's contents as of the read's submission. Throws GpuError (device
  // lost, wait timed out) or InvalidArgument (no read pending).
  std::vector<int32_t> wait();
  bool valid() const { return bool(state_); }

 private:
  friend class ExecutableGraph;
  struct State;
  std::unique_ptr<State> state_;
};

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

  // Makes the next execute() start by copying `source`'s live contents into input `input` on the GPU (no host
  // round trip), with `input`'s live dims set to `dims` now: e.g. a decode step's argmax feeding the next
  // step's token input. dtype and byte size must match; the input then has no host copy, so it must not be
  // one a resize hook reads on the host (select_as_symint). Throws InvalidArgument / LimitError as set_input.
  void feed_input(ValueId input, const Dims& dims, ValueId source);
  // As above from a buffer outside the graph (e.g. another graph's output, copied out by copy_out on the same
  // device): its first `bytes` of live data must match `dims` exactly. The buffer must stay alive until the
  // next execute() has been submitted.
  void feed_input(ValueId input, const Dims& dims, const webgpu::Buffer& source, uint64_t bytes);
  // A new storage buffer holding a GPU copy of tensor `id`'s live contents (queued behind the executes
  // submitted so far, no host round trip); it outlives later executes. Throws LimitError past maxBufferSize.
  webgpu::Buffer copy_out(ValueId id) const;
  // Queues GPU copies inside state tensors (e.g. one KV-cache slot's first positions into another slot), in one
  // submit behind the executes submitted so far and before the next: copy i moves bytes [src, src + bytes) of
  // state `id` to [dst, dst + bytes). Offsets and sizes must be multiples of 4, inside the tensor's max size, and
  // the two ranges of one copy must not overlap. Throws InvalidArgument (not a state tensor, bad ranges); on
  // error nothing is queued.
  struct StateCopy {
    ValueId id = -1;
    uint64_t src = 0, dst = 0, bytes = 0;
  };
  void copy_within(std::span<const StateCopy> copies);

  // Sets a free SymInt (one that no op of the graph writes, e.g. a size the caller knows) for the next
  // execute; the resize hooks that read it run again. Throws InvalidArgument if `id` is not a SymInt.
  void set_symint(ValueId id, int64_t value);

  // Runs the graph: resize, encode, submit (one submit, or one per Tuning::submit_chunk dispatches). Does not
  // wait for the GPU (reads do).
  void execute();

  // Queues a copy of an i32 tensor's live contents (as left by the executes submitted so far) into a mappable
  // buffer and starts mapping it; PendingRead::wait() returns it. Does not wait.
  PendingRead read_i32_async(ValueId id) const;

  // Reads a tensor's live contents (waits for the GPU). For f32 (or f16, widened exactly) / i32 tensors
  // respectively; InvalidArgument naming the tensor for another dtype.
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
