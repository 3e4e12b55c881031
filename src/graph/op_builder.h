// The interface op implementations see: OpBuilder at build time, ResizeContext in resize hooks.
#pragma once
#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/uniform_layout.h"
#include "util/dispatch_grid.h"
#include "webgpu/pipeline_cache.h"
#include "wgrt/error.h"

namespace wgrt {

namespace webgpu {
class Device;
struct Tuning;
}

// Handles to per-node resources (indices into the executable's tables).
struct UniformRef {
  int index = -1;
};
struct ScratchRef {
  int index = -1;
};
struct DispatchRef {
  int index = -1;
};

// What a dispatch binds at @binding(i): a tensor argument (by value id), a scratch buffer or a uniform block.
struct Binding {
  enum class Kind : uint8_t { Tensor, Scratch, Uniform } kind;
  int index;
  // Tensor only: a byte range of the tensor's buffer (size 0 = the whole tensor). The offset must be a
  // multiple of minStorageBufferOffsetAlignment (checked by OpBuilder::dispatch); used to bind slices of
  // weights larger than maxStorageBufferBindingSize.
  uint64_t offset = 0, size = 0;
  static Binding tensor(ValueId id) { return {Kind::Tensor, id}; }
  static Binding tensor_range(ValueId id, uint64_t offset, uint64_t size) {
    Binding b{Kind::Tensor, id};
    b.offset = offset;
    b.size = size;
    return b;
  }
  Binding(UniformRef u) : kind(Kind::Uniform), index(u.index) {}
  Binding(ScratchRef s) : kind(Kind::Scratch), index(s.index) {}

 private:
  Binding(Kind k, int i) : kind(k), index(i) {}
};

class ResizeContext;
class BuildState;  // executable internals

class OpBuilder {
 public:
  OpBuilder(BuildState& s, size_t node_index);

  const Node& node() const;
  size_t num_args() const;
  ValueId arg(size_t i) const;
  const Value& value(size_t i) const;
  TensorValue& tensor(size_t i) const;  // argument i must be a tensor
  bool is_none(size_t i) const;
  bool is_tensor(size_t i) const;
  int64_t int_arg(size_t i) const;      // Int (or a SymInt's current value)
  double real_arg(size_t i) const;      // Double (or Int)
  bool bool_arg(size_t i) const;
  const IntList& int_list(size_t i) const;
  const std::vector<ValueId>& value_list(size_t i) const;  // argument i must be a ValueList (e.g. aten.cat)
  TensorValue& tensor_by_id(ValueId id) const;             // a tensor named by id (a ValueList member)
  int64_t int_by_id(ValueId id) const;                     // an Int or SymInt named by id (a ValueList member)
  const webgpu::Device& device() const;

  // Errors name the node, its label and the op: "node 12 'blk.0.attn_q' (aten.linear.default): msg".
  template <typename... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    throw InvalidArgument(where() + fmt::format(f, std::forward<A>(a)...));
  }
  template <typename... A>
  void check(bool ok, fmt::format_string<A...> f, A&&... a) const {
    if (!ok) fail(f, std::forward<A>(a)...);
  }
  void check_args(size_t n) const;                     // exact argument count
  void check_dtype(size_t i, DType t) const;           // tensor argument i has dtype t
  void check_rank(size_t i, size_t lo, size_t hi) const;

  // Resources.
  // A parameter block (<= 256 bytes) of host struct T (described by WGRT_UNIFORM, uniform_layout.h), written
  // by the resize hook with set_uniform(ref, T{...}); dispatch checks T against the WGSL struct it is bound to.
  template <typename T>
  UniformRef uniform() {
    return uniform_of(wgrt_uniform_layout(static_cast<const T*>(nullptr)));
  }
  UniformRef uniform_of(const UniformLayout& layout);
  ScratchRef scratch(uint64_t bytes, std::string what);  // pooled, valid only during this node's dispatches
  // A dispatch of a kernel; route >= 0 puts it in a route group (the resize hook activates one route).
  // bindings[i] is bound at @binding(i) of the kernel's WGSL, which is the one source of its interface; the
  // pipeline is created here and the bindings are checked against the WGSL declarations: the count; the kind
  // (a UniformRef at each var<uniform>, a tensor or scratch at each var<storage>); the access (no Constant or
  // Input tensor at a read_write binding); and each uniform's host struct against the WGSL struct (size, member
  // count, each member's offset and size). A mismatch throws InvalidArgument naming the node, the kernel, the
  // binding or member, and both sides.
  DispatchRef dispatch(webgpu::KernelSpec spec, std::vector<Binding> bindings, int route = -1);
  void on_resize(std::function<void(ResizeContext&)> hook);
  // Declares that tensor argument `out` is a view of tensor argument `in`: it shares in's buffer (row-major,
  // same dtype, no more bytes than in) and needs no dispatch. Only for outputs that nothing writes in place.
  void alias(size_t out, size_t in);

  std::string where() const;

 private:
  BuildState& s_;
  size_t node_;
};

class ResizeContext {
 public:
  ResizeContext(BuildState& s, size_t node_index) : s_(s), node_(node_index) {}
  TensorValue& tensor(size_t i) const;
  TensorValue& tensor_by_id(ValueId id) const;  // a tensor named by id (a ValueList member)
  int64_t int_arg(size_t i) const;  // Int or live SymInt value
  int64_t int_by_id(ValueId id) const;  // Int or live SymInt value named by id (a ValueList member)
  void set_symint(size_t i, int64_t v) const;
  // Host copy of an input tensor's current data (for select_as_symint); empty for non-inputs.
  std::span<const int32_t> input_host_i32(size_t i) const;
  // Sets an output's live dims; throws LimitError naming the tensor if they exceed its max dims.
  void set_dims(size_t i, const Dims& d) const;
  // Writes the block; T must be the struct the block was declared with (OpBuilder::uniform<T>).
  template <typename T>
  void set_uniform(UniformRef u, const T& v) const {
    static_assert(std::is_trivially_copyable_v<T>);
    set_uniform_bytes(u, wgrt_uniform_layout(static_cast<const T*>(nullptr)), &v);
  }
  // Sets the grid to ceil(invocations / the kernel's workgroup size) workgroups (1-D, folded past the
  // per-dimension limit), `layers` in z. The workgroup size is the kernel's @workgroup_size (all dimensions
  // multiplied), reflected from its WGSL.
  void set_invocations(DispatchRef d, uint64_t invocations, uint32_t layers = 1) const;
  // The reflected @workgroup_size of a dispatch's kernel (x * y * z invocations).
  uint32_t workgroup_invocations(DispatchRef d) const;
  // Sets the grid from a 1-D workgroup count (folded to 2-D past the per-dimension limit).
  void set_workgroups(DispatchRef d, uint64_t count) const;
  // As above, with `layers` grid layers in z (e.g. one per row of a small batch; kernels read workgroup_id.z).
  void set_workgroups(DispatchRef d, uint64_t count, uint32_t layers) const;
  void set_grid(DispatchRef d, Grid g) const;
  void select_route(int route) const;  // activates dispatches of `route` (and those without a route)
  uint32_t max_workgroups_per_dim() const;
  // The device's tuning policy now (for run-time choices such as the split-KV threshold).
  const webgpu::Tuning& tuning() const;
  template <typename... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    throw InvalidArgument(where() + fmt::format(f, std::forward<A>(a)...));
  }
  std::string where() const;

 private:
  void set_uniform_bytes(UniformRef u, const UniformLayout& layout, const void* p) const;
  BuildState& s_;
  size_t node_;
};

}  // namespace wgrt
