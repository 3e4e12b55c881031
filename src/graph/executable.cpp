#include "graph/executable.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <variant>

#include "graph/build_state.h"
#include "graph/op_registry.h"
#include "util/memory_plan.h"

namespace wgrt {

uint64_t BuildState::uniform_alignment() const { return std::max<uint64_t>(dev.limits().minUniformBufferOffsetAlignment, 16); }

namespace {

// Runs the resize hook of one node; ops without a hook must see their build-time input dims.
void resize_node(BuildState& s, size_t i) {
  NodeState& ns = s.nodes[i];
  if (ns.resize) {
    ResizeContext ctx(s, i);
    ns.resize(ctx);
    return;
  }
  const Node& n = s.graph.nodes()[i];
  size_t k = 0;
  for (ValueId a : n.args)
    if (auto* t = std::get_if<TensorValue>(&s.graph.values()[size_t(a)])) {
      if (k < ns.build_dims.size() && t->dims != ns.build_dims[k])
        throw Unsupported(fmt::format("node {} '{}' ({}) has no resize hook, but tensor '{}' changed from {} to {}", i,
                                      n.label, n.op, t->name, dims_str(ns.build_dims[k]), dims_str(t->dims)));
      ++k;
    }
}

// What node i's resize hook reads: rank and live dims of its tensor args (and of tensors in list args), the
// versions of its input args (their host data may have changed), its symint values.
void resize_key(const BuildState& s, size_t i, std::vector<int64_t>& key) {
  key.clear();
  const auto& values = s.graph.values();
  auto add = [&](ValueId a) {
    const Value& v = values[size_t(a)];
    if (auto* t = std::get_if<TensorValue>(&v)) {
      key.push_back(int64_t(t->dims.size()));
      key.insert(key.end(), t->dims.begin(), t->dims.end());
      if (t->role == TensorRole::Input) key.push_back(int64_t(s.input_version[size_t(a)]));
    } else if (auto* x = std::get_if<SymIntValue>(&v)) {
      key.push_back(x->value);
    }
  };
  for (ValueId a : s.graph.nodes()[i].args) {
    if (auto* vl = std::get_if<ValueList>(&values[size_t(a)]))
      for (ValueId m : vl->ids) add(m);
    add(a);
  }
}

// Runs the resize hooks whose inputs changed, in node order, until a pass runs none.
void propagate(BuildState& s) {
  std::vector<int64_t> key;
  try {
    for (int pass = 0; pass < 4; ++pass) {
      bool ran = false;
      for (size_t i = 0; i < s.nodes.size(); ++i) {
        NodeState& ns = s.nodes[i];
        if (!ns.resize) {
          resize_node(s, i);  // only checks the build-time dims
          continue;
        }
        resize_key(s, i, key);
        if (ns.resize_key_valid && key == ns.resize_key) continue;
        resize_node(s, i);
        resize_key(s, i, ns.resize_key);  // after the hook: its outputs' new dims are part of what it last saw
        ns.resize_key_valid = true;
        ran = true;
      }
      if (!ran) return;
    }
  } catch (...) {
    for (NodeState& ns : s.nodes) ns.resize_key_valid = false;  // the next execute recomputes every shape
    throw;
  }
  for (NodeState& ns : s.nodes) ns.resize_key_valid = false;
  throw InvalidArgument("resize propagation did not reach a fixed point in 4 passes (a cycle between resize hooks?)");
}

void plan_and_allocate(BuildState& s) {
  auto& values = s.graph.values();
  s.tensor_buffer.assign(values.size(), -1);
  webgpu::Device& dev = s.dev;
  // Lifetimes of intermediates.
  std::vector<int> first(values.size(), std::numeric_limits<int>::max()), last(values.size(), -1);
  for (size_t i = 0; i < s.graph.nodes().size(); ++i)
    for (ValueId a : s.graph.nodes()[i].args) {
      first[size_t(a)] = std::min(first[size_t(a)], int(i));
      last[size_t(a)] = std::max(last[size_t(a)], int(i));
      if (auto* vl = std::get_if<ValueList>(&values[size_t(a)]))  // tensors inside a list argument (aten.cat)
        for (ValueId m : vl->ids) {
          first[size_t(m)] = std::min(first[size_t(m)], int(i));
          last[size_t(m)] = std::max(last[size_t(m)], int(i));
        }
    }
  // Alias groups (views that share their source's buffer): the root takes the union of the lifetimes, and a
  // group with a graph output in it gets a buffer of its own (it must outlive the execute).
  auto root_of = [&](ValueId id) {
    while (s.alias_of.count(id)) id = s.alias_of.at(id);
    return id;
  };
  std::vector<bool> group_pinned(values.size(), false);
  for (auto& [member, src] : s.alias_of) {
    ValueId r = root_of(member);
    first[size_t(r)] = std::min(first[size_t(r)], first[size_t(member)]);
    last[size_t(r)] = std::max(last[size_t(r)], last[size_t(member)]);
    if (s.graph.tensor_at(member).is_output) group_pinned[size_t(r)] = true;
  }
  std::vector<LifetimeRequest> reqs;
  std::vector<ValueId> req_ids;
  for (size_t id = 0; id < values.size(); ++id) {
    auto* t = std::get_if<TensorValue>(&values[id]);
    if (!t || s.alias_of.count(ValueId(id))) continue;  // aliases take their root's buffer below
    // Unreferenced intermediates and constants (left by graph passes, ops/conv/conv_fusion.h): no buffer.
    if ((t->role == TensorRole::Intermediate || t->role == TensorRole::Constant) && !t->is_output && last[id] < 0 &&
        !group_pinned[id])
      continue;
    if (t->role == TensorRole::Intermediate && !t->is_output && !group_pinned[id] && last[id] >= 0) {
      reqs.push_back({std::max<uint64_t>(t->max_bytes(), 16), first[id], last[id]});
      req_ids.push_back(ValueId(id));
      continue;
    }
    std::string label = t->name;
    s.buffers.emplace_back(dev, std::max<uint64_t>(t->max_bytes(), 16), webgpu::BufferKind::Storage, label);
    s.tensor_buffer[id] = int(s.buffers.size() - 1);
    switch (t->role) {
      case TensorRole::Constant:
        s.buffers.back().write(t->constant.data, t->constant.bytes);
        s.stats.constant_bytes += s.buffers.back().size();
        t->constant = {};  // uploaded: release the host copy (or the file mapping's reference)
        break;
      case TensorRole::State: s.stats.state_bytes += s.buffers.back().size(); break;
      default: s.stats.io_bytes += s.buffers.back().size();
    }
  }
  MemoryPlan plan = plan_memory(reqs);
  std::vector<int> slot_buffer(plan.slot_bytes.size());
  for (size_t k = 0; k < plan.slot_bytes.size(); ++k) {
    s.buffers.emplace_back(dev, plan.slot_bytes[k], webgpu::BufferKind::Storage, fmt::format("intermediate slot {}", k));
    slot_buffer[k] = int(s.buffers.size() - 1);
  }
  for (size_t r = 0; r < req_ids.size(); ++r) s.tensor_buffer[size_t(req_ids[r])] = slot_buffer[size_t(plan.slot_of[r])];
  for (auto& [member, src] : s.alias_of) s.tensor_buffer[size_t(member)] = s.tensor_buffer[size_t(root_of(member))];
  s.stats.intermediate_requested = plan.requested_bytes;
  s.stats.intermediate_planned = plan.planned_bytes;
  s.stats.intermediate_buffers = plan.slot_bytes.size();

  // Scratch pool: slot k (k-th scratch request of a node) is shared by every node.
  std::vector<uint64_t> scratch_slot_bytes;
  for (const ScratchRequest& r : s.scratch) {
    if (size_t(r.slot) >= scratch_slot_bytes.size()) scratch_slot_bytes.resize(size_t(r.slot) + 1, 0);
    scratch_slot_bytes[size_t(r.slot)] = std::max(scratch_slot_bytes[size_t(r.slot)], r.bytes);
  }
  for (size_t k = 0; k < scratch_slot_bytes.size(); ++k) {
    s.buffers.emplace_back(dev, scratch_slot_bytes[k], webgpu::BufferKind::Storage, fmt::format("scratch slot {}", k));
    s.scratch_buffer.push_back(int(s.buffers.size() - 1));
    s.stats.scratch_bytes += s.buffers.back().size();
  }
  s.stats.scratch_buffers = scratch_slot_bytes.size();
  s.stats.scratch_requests = s.scratch.size();
}

void make_bind_groups(BuildState& s) {
  for (DispatchRecord& d : s.dispatches) {
    std::vector<webgpu::BufferBinding> b;
    std::vector<std::string> labels;
    labels.reserve(d.bindings.size());
    for (const Binding& x : d.bindings) {
      switch (x.kind) {
        case Binding::Kind::Tensor: {
          const TensorValue& t = s.graph.tensor_at(x.index);
          const webgpu::Buffer& buf = s.buffers[size_t(s.tensor_buffer[size_t(x.index)])];
          labels.push_back(t.name);
          if (x.size) b.push_back({buf.get(), x.offset, x.size, {}});
          else b.push_back({buf.get(), 0, std::max<uint64_t>((t.max_bytes() + 3) / 4 * 4, 4), {}});
          break;
        }
        case Binding::Kind::Scratch: {
          const ScratchRequest& r = s.scratch[size_t(x.index)];
          const webgpu::Buffer& buf = s.buffers[size_t(s.scratch_buffer[size_t(r.slot)])];
          labels.push_back(r.what);
          b.push_back({buf.get(), 0, (r.bytes + 3) / 4 * 4, {}});
          break;
        }
        case Binding::Kind::Uniform: {
          const UniformBlock& u = s.uniforms[size_t(x.index)];
          labels.push_back("params");
          b.push_back({s.uniform_arena.get(), u.offset, u.bytes, {}});
          break;
        }
      }
    }
    for (size_t i = 0; i < b.size(); ++i) b[i].label = labels[i];
    const Node& n = s.graph.nodes()[d.node];
    try {
      d.bind_group = webgpu::make_bind_group(s.dev, *d.pipeline, b);
    } catch (const Error& e) {
      throw LimitError(fmt::format("node {} '{}' ({}): {}", d.node, n.label, n.op, e.what()));
    }
  }
}

}  // namespace

std::unique_ptr<ExecutableGraph> ExecutableGraph::build(Graph graph, webgpu::Device& dev, const OpRegistry* ops) {
  auto s = std::make_unique<BuildState>(std::move(graph), dev);
  const OpRegistry& reg = ops ? *ops : OpRegistry::builtin();
  const auto& nodes = s->graph.nodes();
  s->nodes.resize(nodes.size());
  // i32 inputs start as zeros (as their GPU buffers do), so host-side readers see defined values.
  for (size_t id = 0; id < s->graph.values().size(); ++id)
    if (auto* t = std::get_if<TensorValue>(&s->graph.values()[id]); t && t->role == TensorRole::Input && t->dtype == DType::I32)
      s->input_host[ValueId(id)].assign(size_t(numel(t->dims)), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const OpDef* def = reg.find(nodes[i].op);
    if (!def)
      throw InvalidArgument(fmt::format("node {} '{}': unknown op '{}' (see `wgrt ops` for the registered ops)", i,
                                        nodes[i].label, nodes[i].op));
    OpBuilder b(*s, i);
    s->current_op = def;
    def->build(b);
    s->current_op = nullptr;
    if (def->resizable != bool(s->nodes[i].resize))
      throw InvalidArgument(fmt::format("node {} '{}': op '{}' is registered with resizable = {} but its build registers {} resize hook",
                                        i, nodes[i].label, nodes[i].op, def->resizable,
                                        s->nodes[i].resize ? "a" : "no"));
    // Lay out this node's uniform blocks now, so its resize hook can write them.
    uint64_t align = s->uniform_alignment();
    for (size_t k = s->uniforms_laid_out; k < s->uniforms.size(); ++k) {
      s->uniforms[k].offset = s->uniform_host.size();
      s->uniform_host.resize(s->uniform_host.size() + (s->uniforms[k].bytes + align - 1) / align * align, 0);
    }
    s->uniforms_laid_out = s->uniforms.size();
    // Run the resize hook at max shapes; outputs whose dims are inferred take the dims it sets as their max.
    if (s->nodes[i].resize) {
      ResizeContext ctx(*s, i);
      s->nodes[i].resize(ctx);
      for (ValueId a : nodes[i].args)
        if (auto* t = std::get_if<TensorValue>(&s->graph.values()[size_t(a)]); t && t->infer_dims && !t->dims.empty()) {
          t->max_dims = t->dims;
          t->infer_dims = false;
        }
    } else {
      for (ValueId a : nodes[i].args)
        if (auto* t = std::get_if<TensorValue>(&s->graph.values()[size_t(a)])) {
          if (t->infer_dims) throw InvalidArgument(fmt::format("node {} '{}' ({}): op cannot infer the dims of '{}'", i, nodes[i].label, nodes[i].op, t->name));
          s->nodes[i].build_dims.push_back(t->dims);
        }
    }
  }
  for (const Value& v : s->graph.values())
    if (auto* t = std::get_if<TensorValue>(&v); t && t->infer_dims)
      throw InvalidArgument(fmt::format("tensor '{}' has inferred dims but no op produces it", t->name));
  plan_and_allocate(*s);
  s->input_version.assign(s->graph.values().size(), 0);
  s->uniform_arena = webgpu::Buffer(dev, std::max<size_t>(s->uniform_host.size(), 16), webgpu::BufferKind::Uniform, "uniform arena");
  make_bind_groups(*s);
  if (const char* e = std::getenv("WGRT_TIMESTAMP_QUERY"); e && std::string(e) == "1") s->profiler = std::make_unique<Profiler>(dev);
  return std::unique_ptr<ExecutableGraph>(new ExecutableGraph(std::move(s)));
}

ExecutableGraph::ExecutableGraph(std::unique_ptr<BuildState> s) : s_(std::move(s)) {}
ExecutableGraph::~ExecutableGraph() = default;

void ExecutableGraph::execute() {
  BuildState& s = *s_;
  s.dev.check_errors();
  propagate(s);
  if (s.uniform_dirty) {
    s.uniform_arena.write(s.uniform_host.data(), s.uniform_host.size());
    s.uniform_dirty = false;
  }
  std::vector<size_t> active;
  active.reserve(s.dispatches.size());
  for (size_t i = 0; i < s.dispatches.size(); ++i) {
    const DispatchRecord& d = s.dispatches[i];
    if (d.active && d.grid.x && d.grid.y && d.grid.z) active.push_back(i);
  }
  webgpu::CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(s.dev.get(), nullptr));
  for (const InputFeed& f : s.feeds) wgpuCommandEncoderCopyBufferToBuffer(enc.get(), f.src, 0, f.dst, 0, f.bytes);
  s.feeds.clear();
  auto record = [&](WGPUComputePassEncoder pass, const DispatchRecord& d) {
    wgpuComputePassEncoderSetPipeline(pass, d.pipeline->pipeline.get());
    wgpuComputePassEncoderSetBindGroup(pass, 0, d.bind_group.get(), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass, d.grid.x, d.grid.y, d.grid.z);
  };
  auto submit = [&] {
    webgpu::CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
    WGPUCommandBuffer c = cmd.get();
    wgpuQueueSubmit(s.dev.queue(), 1, &c);
  };
  if (s.profiler) {
    s.profiler->begin(active.size());
    for (size_t k = 0; k < active.size(); ++k) {
      WGPUPassTimestampWrites tw = s.profiler->pass_writes(k);
      WGPUComputePassDescriptor pd{};
      pd.timestampWrites = &tw;
      webgpu::ComputePassHandle pass(wgpuCommandEncoderBeginComputePass(enc.get(), &pd));
      record(pass.get(), s.dispatches[active[k]]);
      wgpuComputePassEncoderEnd(pass.get());
    }
    s.profiler->resolve(enc.get());
    submit();
  } else {
    // One pass per chunk of submit_chunk dispatches (0: all), each chunk submitted as soon as it is recorded.
    const size_t chunk = s.dev.tuning().submit_chunk ? s.dev.tuning().submit_chunk : std::max<size_t>(active.size(), 1);
    for (size_t at = 0; at < active.size() || at == 0; at += chunk) {
      if (at > 0) enc.reset(wgpuDeviceCreateCommandEncoder(s.dev.get(), nullptr));
      webgpu::ComputePassHandle pass(wgpuCommandEncoderBeginComputePass(enc.get(), nullptr));
      for (size_t k = at; k < std::min(active.size(), at + chunk); ++k) record(pass.get(), s.dispatches[active[k]]);
      wgpuComputePassEncoderEnd(pass.get());
      submit();
      if (active.empty()) break;
    }
  }
  s.dev.check_errors();
  if (s.profiler) {
    std::vector<std::string> names, kernels;
    std::vector<int> layers;
    for (size_t i : active) {
      const DispatchRecord& d = s.dispatches[i];
      const Node& n = s.graph.nodes()[d.node];
      names.push_back(n.label + "/" + d.kernel);
      kernels.push_back(n.op + " " + d.kernel);
      layers.push_back(n.layer);
    }
    s.profiler->collect(names, kernels, layers);
  }
}

const Dims& ExecutableGraph::dims(ValueId id) const { return s_->graph.tensor_at(id).dims; }

int64_t ExecutableGraph::symint(ValueId id) const {
  auto* x = std::get_if<SymIntValue>(&s_->graph.value(id));
  if (!x) throw InvalidArgument(fmt::format("value {} is not a symint", id));
  return x->value;
}

void ExecutableGraph::enable_profiling(bool on) {
  if (on && !s_->profiler) s_->profiler = std::make_unique<Profiler>(s_->dev);
  if (!on) s_->profiler.reset();
}

Profiler* ExecutableGraph::profiler() const { return s_->profiler.get(); }
MemoryStats ExecutableGraph::memory() const { return s_->stats; }
const Graph& ExecutableGraph::graph() const { return s_->graph; }
webgpu::Device& ExecutableGraph::device() const { return s_->dev; }

size_t ExecutableGraph::dispatch_count(bool active_only) const {
  size_t n = 0;
  for (const auto& d : s_->dispatches) n += !active_only || d.active;
  return n;
}

std::string ExecutableGraph::dump() const {
  std::string out = s_->graph.dump();
  for (size_t i = 0; i < s_->dispatches.size(); ++i) {
    const DispatchRecord& d = s_->dispatches[i];
    out += fmt::format("dispatch {} node {} {} grid {}x{}x{}{}{}\n", i, d.node, d.kernel, d.grid.x, d.grid.y, d.grid.z,
                       d.route >= 0 ? fmt::format(" route {}", d.route) : "", d.active ? "" : " (inactive)");
  }
  const MemoryStats& m = s_->stats;
  out += fmt::format("memory: constants {} B, state {} B, io {} B, intermediates {} B planned of {} B requested "
                     "({} buffers), scratch {} B in {} buffers for {} requests\n",
                     m.constant_bytes, m.state_bytes, m.io_bytes, m.intermediate_planned, m.intermediate_requested,
                     m.intermediate_buffers, m.scratch_bytes, m.scratch_buffers, m.scratch_requests);
  return out;
}

}  // namespace wgrt
