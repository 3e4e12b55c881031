#include "graph/op_builder.h"

#include <fmt/ranges.h>

#include "graph/build_state.h"
#include "webgpu/device.h"

namespace wgrt {

// ---- OpBuilder ----

OpBuilder::OpBuilder(BuildState& s, size_t node_index) : s_(s), node_(node_index) {}

const Node& OpBuilder::node() const { return s_.graph.nodes()[node_]; }
size_t OpBuilder::num_args() const { return node().args.size(); }

std::string OpBuilder::where() const {
  const Node& n = node();
  return fmt::format("node {} '{}' ({}): ", node_, n.label, n.op);
}

ValueId OpBuilder::arg(size_t i) const {
  if (i >= num_args()) fail("missing argument {} (the op got {} arguments)", i, num_args());
  return node().args[i];
}

const Value& OpBuilder::value(size_t i) const { return s_.graph.value(arg(i)); }

TensorValue& OpBuilder::tensor(size_t i) const {
  auto* t = std::get_if<TensorValue>(&s_.graph.values()[size_t(arg(i))]);
  if (!t) fail("argument {} must be a tensor, got {}", i, value_kind(value(i)));
  return *t;
}

bool OpBuilder::is_none(size_t i) const { return i >= num_args() || std::holds_alternative<NoneValue>(value(i)); }
bool OpBuilder::is_tensor(size_t i) const { return i < num_args() && std::holds_alternative<TensorValue>(value(i)); }

int64_t OpBuilder::int_arg(size_t i) const {
  const Value& v = value(i);
  if (auto* x = std::get_if<int64_t>(&v)) return *x;
  if (auto* x = std::get_if<SymIntValue>(&v)) return x->value;
  if (auto* x = std::get_if<bool>(&v)) return *x;
  fail("argument {} must be an int, got {}", i, value_kind(v));
}

double OpBuilder::real_arg(size_t i) const {
  const Value& v = value(i);
  if (auto* x = std::get_if<double>(&v)) return *x;
  if (auto* x = std::get_if<int64_t>(&v)) return double(*x);
  fail("argument {} must be a number, got {}", i, value_kind(v));
}

bool OpBuilder::bool_arg(size_t i) const {
  const Value& v = value(i);
  if (auto* x = std::get_if<bool>(&v)) return *x;
  if (auto* x = std::get_if<int64_t>(&v)) return *x != 0;
  fail("argument {} must be a bool, got {}", i, value_kind(v));
}

const IntList& OpBuilder::int_list(size_t i) const {
  auto* x = std::get_if<IntList>(&value(i));
  if (!x) fail("argument {} must be an int list, got {}", i, value_kind(value(i)));
  return *x;
}

const std::vector<ValueId>& OpBuilder::value_list(size_t i) const {
  auto* x = std::get_if<ValueList>(&value(i));
  if (!x) fail("argument {} must be a value list, got {}", i, value_kind(value(i)));
  return x->ids;
}

TensorValue& OpBuilder::tensor_by_id(ValueId id) const {
  const Value& v = s_.graph.value(id);  // bounds-checked
  auto* t = std::get_if<TensorValue>(&s_.graph.values()[size_t(id)]);
  if (!t) fail("value {} must be a tensor, got {}", id, value_kind(v));
  return *t;
}

int64_t OpBuilder::int_by_id(ValueId id) const {
  const Value& v = s_.graph.value(id);  // bounds-checked
  if (auto* x = std::get_if<int64_t>(&v)) return *x;
  if (auto* x = std::get_if<SymIntValue>(&v)) return x->value;
  fail("value {} must be an int or symint, got {}", id, value_kind(v));
}

const webgpu::Device& OpBuilder::device() const { return s_.dev; }

void OpBuilder::check_args(size_t n) const { check(num_args() == n, "expects {} arguments, got {}", n, num_args()); }

void OpBuilder::check_dtype(size_t i, DType t) const {
  const TensorValue& x = tensor(i);
  check(x.dtype == t, "tensor '{}' (argument {}) must be {}, got {}", x.name, i, dtype_name(t), dtype_name(x.dtype));
}

void OpBuilder::check_rank(size_t i, size_t lo, size_t hi) const {
  const TensorValue& x = tensor(i);
  check(x.dims.size() >= lo && x.dims.size() <= hi, "tensor '{}' (argument {}) must have rank {}..{}, got {} {}",
        x.name, i, lo, hi, x.dims.size(), dims_str(x.dims));
}

UniformRef OpBuilder::uniform_of(const UniformLayout& layout) {
  check(layout.size > 0 && layout.size <= 256, "uniform block {} of {} bytes (1..256 allowed)", layout.type, layout.size);
  s_.uniforms.push_back({0, (layout.size + 15) / 16 * 16, &layout});
  return {int(s_.uniforms.size() - 1)};
}

ScratchRef OpBuilder::scratch(uint64_t bytes, std::string what) {
  NodeState& n = s_.nodes[node_];
  s_.scratch.push_back({std::max<uint64_t>(bytes, 4), int(n.scratch.size()), std::move(what)});
  n.scratch.push_back(int(s_.scratch.size() - 1));
  return {int(s_.scratch.size() - 1)};
}

namespace {

// A uniform block's host struct against the WGSL struct of the binding: size, member count, offsets and sizes.
std::string uniform_mismatch(const UniformLayout& host, const webgpu::WgslStruct& w) {
  const size_t n = std::min(host.fields.size(), w.members.size());
  for (size_t i = 0; i < n; ++i) {
    const UniformField& h = host.fields[i];
    const webgpu::WgslMember& m = w.members[i];
    if (h.offset != m.offset || h.size != m.size)
      return fmt::format("member {}: WGSL {}.{} ({}) is at offset {} ({} bytes), host {}.{} at offset {} ({} bytes)", i,
                         w.name, m.name, m.type, m.offset, m.size, host.type, h.name, h.offset, h.size);
  }
  if (host.fields.size() != w.members.size())
    return fmt::format("WGSL struct {} has {} members, host struct {} has {} fields", w.name, w.members.size(), host.type,
                       host.fields.size());
  if (host.size != w.size)
    return fmt::format("WGSL struct {} is {} bytes, host struct {} is {} bytes", w.name, w.size, host.type, host.size);
  return {};
}

}  // namespace

DispatchRef OpBuilder::dispatch(webgpu::KernelSpec spec, std::vector<Binding> bindings, int route) {
  for (const Binding& b : bindings)
    if (b.kind == Binding::Kind::Tensor) {
      bool found = false;
      for (ValueId a : node().args) {
        found |= a == b.index;
        if (auto* vl = std::get_if<ValueList>(&s_.graph.value(a)))  // members of a list argument (aten.cat)
          for (ValueId m : vl->ids) found |= m == b.index;
      }
      check(found, "a dispatch binds value {} which is not an argument of the node", b.index);
      if (b.size) {
        const auto& t = s_.graph.tensor_at(b.index);
        uint64_t align = s_.dev.limits().minStorageBufferOffsetAlignment;
        check(b.offset % std::max<uint64_t>(align, 1) == 0 && b.size % 4 == 0 && b.offset + b.size <= t.max_bytes(),
              "binding range [{}, {}) of tensor '{}' ({} bytes) is out of bounds or misaligned (offset alignment {})",
              b.offset, b.offset + b.size, t.name, t.max_bytes(), align);
      }
    }
  DispatchRecord d;
  try {
    d.pipeline = &s_.dev.pipelines().get(spec);
  } catch (const Error& e) {
    throw GpuError(where() + e.what());
  }
  // The WGSL declares the interface; the op's bindings must agree with it.
  const std::string& kernel = d.pipeline->label;
  if (const OpDef* def = s_.current_op) {
    bool listed = false;
    for (const std::string& k : def->kernels) listed |= k == kernel;
    check(listed, "dispatches kernel {}, which the op's registration (OpDef.kernels: {}) does not list", kernel,
          fmt::join(def->kernels, ", "));
  }
  const std::vector<webgpu::WgslBinding>& decl = d.pipeline->iface.bindings;
  check(bindings.size() == decl.size(), "kernel {} declares {} bindings in its WGSL but the op binds {}", kernel,
        decl.size(), bindings.size());
  for (size_t i = 0; i < decl.size(); ++i) {
    const webgpu::WgslBinding& w = decl[i];
    const Binding& x = bindings[i];
    std::string what = x.kind == Binding::Kind::Tensor    ? fmt::format("tensor '{}'", s_.graph.tensor_at(x.index).name)
                       : x.kind == Binding::Kind::Scratch ? fmt::format("scratch '{}'", s_.scratch.at(size_t(x.index)).what)
                                                          : fmt::format("uniform block {}", s_.uniforms.at(size_t(x.index)).layout->type);
    const bool wgsl_uniform = w.type == webgpu::BindingType::Uniform;
    check(wgsl_uniform == (x.kind == Binding::Kind::Uniform),
          "kernel {} binding {} '{}': the WGSL declares var<{}> {} but the op binds {}", kernel, i, w.name,
          webgpu::binding_type_name(w.type), w.type_name, what);
    if (x.kind == Binding::Kind::Tensor && w.type == webgpu::BindingType::Storage) {
      const TensorRole role = s_.graph.tensor_at(x.index).role;
      check(role != TensorRole::Constant && role != TensorRole::Input,
            "kernel {} binding {} '{}': the WGSL declares var<storage, read_write> but the op binds {}, a {} that kernels "
            "must not write",
            kernel, i, w.name, what, role == TensorRole::Constant ? "weight" : "graph input");
    }
    if (x.kind == Binding::Kind::Uniform) {
      const std::string m = uniform_mismatch(*s_.uniforms.at(size_t(x.index)).layout, w.layout);
      check(m.empty(), "kernel {} binding {} '{}' (var<uniform> {}): {}", kernel, i, w.name, w.type_name, m);
    }
  }
  d.kernel = kernel;
  d.bindings = std::move(bindings);
  d.route = route;
  d.node = node_;
  s_.dispatches.push_back(std::move(d));
  s_.nodes[node_].dispatches.push_back(int(s_.dispatches.size() - 1));
  return {int(s_.dispatches.size() - 1)};
}

void OpBuilder::alias(size_t out, size_t in) {
  const TensorValue& o = tensor(out);
  const TensorValue& i = tensor(in);
  check(o.role == TensorRole::Intermediate, "view output '{}' must be an intermediate tensor", o.name);
  check(o.dtype == i.dtype, "view '{}' ({}) of '{}' ({}) must keep the dtype", o.name, dtype_name(o.dtype), i.name,
        dtype_name(i.dtype));
  check(o.max_bytes() <= i.max_bytes(), "view '{}' ({} bytes at max dims) is larger than its source '{}' ({} bytes)",
        o.name, o.max_bytes(), i.name, i.max_bytes());
  check(!s_.alias_of.count(arg(out)), "tensor '{}' is already a view", o.name);
  s_.alias_of[arg(out)] = arg(in);
}

void OpBuilder::on_resize(std::function<void(ResizeContext&)> hook) { s_.nodes[node_].resize = std::move(hook); }

// ---- ResizeContext ----

std::string ResizeContext::where() const {
  const Node& n = s_.graph.nodes()[node_];
  return fmt::format("node {} '{}' ({}): ", node_, n.label, n.op);
}

TensorValue& ResizeContext::tensor(size_t i) const { return s_.graph.tensor_at(s_.graph.nodes()[node_].args.at(i)); }

TensorValue& ResizeContext::tensor_by_id(ValueId id) const { return s_.graph.tensor_at(id); }

int64_t ResizeContext::int_arg(size_t i) const {
  const Value& v = s_.graph.value(s_.graph.nodes()[node_].args.at(i));
  if (auto* x = std::get_if<int64_t>(&v)) return *x;
  if (auto* x = std::get_if<SymIntValue>(&v)) return x->value;
  if (auto* x = std::get_if<bool>(&v)) return *x;
  fail("argument {} must be an int or symint, got {}", i, value_kind(v));
}

int64_t ResizeContext::int_by_id(ValueId id) const {
  const Value& v = s_.graph.value(id);
  if (auto* x = std::get_if<int64_t>(&v)) return *x;
  if (auto* x = std::get_if<SymIntValue>(&v)) return x->value;
  fail("value {} must be an int or symint, got {}", id, value_kind(v));
}

void ResizeContext::set_symint(size_t i, int64_t v) const {
  auto* x = std::get_if<SymIntValue>(&s_.graph.values()[size_t(s_.graph.nodes()[node_].args.at(i))]);
  if (!x) fail("argument {} must be a symint", i);
  x->value = v;
}

std::span<const int32_t> ResizeContext::input_host_i32(size_t i) const {
  auto it = s_.input_host.find(s_.graph.nodes()[node_].args.at(i));
  if (it == s_.input_host.end()) return {};
  return it->second;
}

void ResizeContext::set_dims(size_t i, const Dims& d) const {
  TensorValue& t = tensor(i);
  if (t.infer_dims) {  // at build: the op defines the max dims of an inferred output
    t.dims = d;
    return;
  }
  bool fits = d.size() == t.max_dims.size();
  for (size_t k = 0; fits && k < d.size(); ++k) fits = d[k] >= 0 && d[k] <= t.max_dims[k];
  if (!fits)
    throw LimitError(where() + fmt::format("output '{}' would have dims {}, beyond its max {}", t.name, dims_str(d),
                                           dims_str(t.max_dims)));
  t.dims = d;
}

void ResizeContext::set_uniform_bytes(UniformRef u, const UniformLayout& layout, const void* p) const {
  const UniformBlock& b = s_.uniforms.at(size_t(u.index));
  if (b.layout != &layout) fail("uniform write of a {} into a block declared as {}", layout.type, b.layout->type);
  uint8_t* dst = s_.uniform_host.data() + b.offset;
  if (std::memcmp(dst, p, layout.size) != 0) {
    std::memcpy(dst, p, layout.size);
    s_.uniform_dirty = true;
  }
}

uint32_t ResizeContext::workgroup_invocations(DispatchRef d) const {
  const uint32_t n = s_.dispatches.at(size_t(d.index)).pipeline->iface.invocations();
  if (n == 0) fail("kernel {} has no reflected @workgroup_size", s_.dispatches.at(size_t(d.index)).kernel);
  return n;
}

void ResizeContext::set_invocations(DispatchRef d, uint64_t invocations, uint32_t layers) const {
  set_workgroups(d, div_up(invocations, uint64_t(workgroup_invocations(d))), layers);
}

const webgpu::Tuning& ResizeContext::tuning() const { return s_.dev.tuning(); }

uint32_t ResizeContext::max_workgroups_per_dim() const { return s_.dev.limits().maxComputeWorkgroupsPerDimension; }

void ResizeContext::set_workgroups(DispatchRef d, uint64_t count) const { set_workgroups(d, count, 1); }

void ResizeContext::set_workgroups(DispatchRef d, uint64_t count, uint32_t layers) const {
  Grid g = fold_grid(count, max_workgroups_per_dim());
  g.z = layers;
  set_grid(d, g);
}

void ResizeContext::set_grid(DispatchRef d, Grid g) const {
  uint32_t lim = max_workgroups_per_dim();
  if (g.x > lim || g.y > lim || g.z > lim)
    fail("grid {}x{}x{} exceeds maxComputeWorkgroupsPerDimension {}", g.x, g.y, g.z, lim);
  s_.dispatches.at(size_t(d.index)).grid = g;
}

void ResizeContext::select_route(int route) const {
  for (int di : s_.nodes[node_].dispatches) {
    DispatchRecord& d = s_.dispatches[size_t(di)];
    d.active = d.route < 0 || d.route == route;
  }
}

}  // namespace wgrt
