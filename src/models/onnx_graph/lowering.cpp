#include "models/onnx_graph/lowering.h"

#include "util/printable.h"

namespace wgrt::onnx {

std::string Lowering::where() const { return node ? fmt::format("ONNX node {}: ", node->label()) : "ONNX graph: "; }

const Val& Lowering::in(size_t i) const {
  if (!has(i)) fail("input {} is required", i);
  auto it = vals.find(node->inputs[i]);
  if (it == vals.end()) fail("input '{}' is not defined", printable(node->inputs[i]));
  return it->second;
}

bool Lowering::all_host() const {
  for (size_t i = 0; i < num_inputs(); ++i)
    if (has(i) && !is_host(i)) return false;
  return true;
}

const HostTensor& Lowering::host(size_t i) const {
  const Val& v = in(i);
  if (!v.host && v.graph_input)
    throw NeedsHostInput(where() + fmt::format("input {} ('{}') must be known at compile time", i, printable(node->inputs[i])), node->inputs[i]);
  if (!v.host) unsupported("input {} ('{}') must be a constant (an initializer or computable at load time)", i, printable(node->inputs[i]));
  return *v.host;
}

ValueId Lowering::gpu_of(const Val& v, const std::string& name) {
  if (v.type != ElemType::Float)
    unsupported("input '{}' has element type {}; wgrt runs this op on float tensors only", printable(name), elem_name(v.type));
  if (v.id >= 0) return v.id;
  return constant_f32(name, v.dims, v.host->floats());
}

ValueId Lowering::gpu(size_t i) {
  const Val& v = in(i);
  ValueId id = gpu_of(v, node->inputs[i]);
  vals[node->inputs[i]].id = id;  // uploaded once
  return id;
}

const Attribute* Lowering::attr(const char* name) const {
  auto it = node->attrs.find(name);
  return it == node->attrs.end() ? nullptr : &it->second;
}

int64_t Lowering::attr_int(const char* name, int64_t dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  if (a->kind != Attribute::Kind::Int) fail("attribute '{}' must be an int", name);
  return a->i;
}

float Lowering::attr_float(const char* name, float dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  if (a->kind == Attribute::Kind::Int) return float(a->i);
  if (a->kind != Attribute::Kind::Float) fail("attribute '{}' must be a float", name);
  return a->f;
}

std::string Lowering::attr_str(const char* name, const std::string& dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  if (a->kind != Attribute::Kind::String) fail("attribute '{}' must be a string", name);
  return a->s;
}

std::vector<int64_t> Lowering::attr_ints(const char* name, std::vector<int64_t> dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  if (a->kind == Attribute::Kind::Int) return {a->i};
  if (a->kind != Attribute::Kind::Ints) fail("attribute '{}' must be a list of ints", name);
  return a->ints;
}

std::vector<float> Lowering::attr_floats(const char* name) const {
  const Attribute* a = attr(name);
  if (!a) return {};
  if (a->kind == Attribute::Kind::Float) return {a->f};
  if (a->kind != Attribute::Kind::Floats) fail("attribute '{}' must be a list of floats", name);
  return a->floats;
}

void Lowering::known_attrs(std::initializer_list<const char*> known) const {
  for (const auto& [k, v] : node->attrs) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) unsupported("attribute '{}' is not supported by wgrt", printable(k));
  }
}

void Lowering::set_host(size_t o, HostTensor h) {
  if (!wants(o)) return;
  host_numel(h.dims);
  Val v;
  v.type = h.type;
  v.dims = h.dims;
  v.host = std::move(h);
  vals[node->outputs[o]] = std::move(v);
}

void Lowering::set_gpu(size_t o, ValueId id, Dims dims) {
  if (!wants(o)) return;
  Val v;
  v.type = ElemType::Float;
  v.dims = std::move(dims);
  v.id = id;
  vals[node->outputs[o]] = std::move(v);
}

void Lowering::alias_output(size_t o, size_t i) {
  if (wants(o)) vals[node->outputs[o]] = in(i);
}

std::string Lowering::label(const std::string& suffix) const {
  std::string base = node->name.empty() ? fmt::format("{}#{}", node->op_type, node->index) : node->name;
  return suffix.empty() ? base : base + "." + suffix;
}

void Lowering::check_device_dims(const Dims& dims) const {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d <= 0) unsupported("an empty tensor ({}) on the device is not supported", dims_str(dims));
    if (n > (int64_t(1) << 40) / d) unsupported("a tensor of dims {} is too large", dims_str(dims));
    n *= d;
  }
}

int64_t Lowering::bounded(int64_t v, int64_t lo, const char* what) const {
  if (v < lo || v > (int64_t(1) << 24)) fail("{} {} is out of range (must be in [{}, 2^24])", what, v, lo);
  return v;
}

ValueId Lowering::emit(const std::string& op, std::vector<ValueId> args, Dims dims, const std::string& suffix) {
  check_device_dims(dims);
  ValueId out = g.tensor(DType::F32, dims, label(suffix));
  args.push_back(out);
  g.op(op, std::move(args), label(suffix));
  return out;
}

ValueId Lowering::view(ValueId x, const Dims& dims) {
  return emit("aten.view_copy.default", {x, g.int_list(dims)}, dims, "view");
}

ValueId Lowering::permute(ValueId x, const Dims& in_dims, const std::vector<int64_t>& perm) {
  Dims od;
  for (int64_t p : perm) od.push_back(in_dims[size_t(p)]);
  return emit("aten.permute_copy.default", {x, g.int_list(perm)}, od, "permute");
}

ValueId Lowering::constant_f32(const std::string& name, Dims dims, std::vector<float> v) {
  check_device_dims(dims);
  return g.constant(name, DType::F32, dims, ConstantData::from_vector(std::move(v)));
}

int64_t Lowering::axis(int64_t a, size_t rank, const char* what) const {
  const int64_t r = int64_t(rank);
  if (a < -r || a >= r) fail("{} {} is out of range for rank {}", what, a, rank);
  return a < 0 ? a + r : a;
}

}  // namespace wgrt::onnx
