#include "graph/graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

#include "wgrt/error.h"

namespace wgrt {

ValueId Graph::add(Value v) {
  values_.push_back(std::move(v));
  return ValueId(values_.size() - 1);
}

static void check_dims(const std::string& name, const Dims& d) {
  for (int64_t x : d)
    if (x < 0) throw InvalidArgument(fmt::format("tensor '{}': negative dim in {}", name, dims_str(d)));
}

ValueId Graph::input(std::string name, DType dtype, Dims max_dims) {
  check_dims(name, max_dims);
  TensorValue t{std::move(name), dtype, max_dims, max_dims, TensorRole::Input};
  return add(std::move(t));
}

ValueId Graph::constant(std::string name, DType dtype, Dims dims, ConstantData data) {
  check_dims(name, dims);
  TensorValue t{std::move(name), dtype, dims, dims, TensorRole::Constant};
  if (data.bytes != t.max_bytes())
    throw InvalidArgument(fmt::format("constant '{}': {} bytes of data for {} {} ({} bytes)", t.name, data.bytes,
                                      dtype_name(dtype), dims_str(dims), t.max_bytes()));
  t.constant = std::move(data);
  return add(std::move(t));
}

ValueId Graph::state(std::string name, DType dtype, Dims dims) {
  check_dims(name, dims);
  return add(TensorValue{std::move(name), dtype, dims, dims, TensorRole::State});
}

ValueId Graph::tensor(DType dtype, Dims max_dims, std::string name) {
  if (name.empty()) name = fmt::format("t{}", values_.size());
  check_dims(name, max_dims);
  return add(TensorValue{std::move(name), dtype, max_dims, max_dims, TensorRole::Intermediate});
}

ValueId Graph::tensor_like(DType dtype, std::string name) {
  if (name.empty()) name = fmt::format("t{}", values_.size());
  TensorValue t{std::move(name), dtype, {}, {}, TensorRole::Intermediate};
  t.infer_dims = true;
  return add(std::move(t));
}

void Graph::output(ValueId id) {
  tensor_at(id).is_output = true;
  outputs_.push_back(id);
}

ValueId Graph::symint(int64_t initial) { return add(SymIntValue{initial}); }
ValueId Graph::int_value(int64_t v) { return add(v); }
ValueId Graph::real(double v) { return add(v); }
ValueId Graph::boolean(bool v) { return add(v); }
ValueId Graph::int_list(IntList v) { return add(std::move(v)); }
ValueId Graph::value_list(std::vector<ValueId> ids) { return add(ValueList{std::move(ids)}); }
ValueId Graph::none() { return add(NoneValue{}); }
ValueId Graph::string(std::string s) { return add(std::move(s)); }

void Graph::op(std::string name, std::vector<ValueId> args, std::string label, int layer) {
  for (ValueId a : args)
    if (a < 0 || size_t(a) >= values_.size())
      throw InvalidArgument(fmt::format("op {}: argument id {} does not exist", name, a));
  if (label.empty()) label = fmt::format("n{}", nodes_.size());
  nodes_.push_back(Node{std::move(name), std::move(args), std::move(label), layer >= 0 ? layer : layer_});
}

const Value& Graph::value(ValueId id) const {
  if (id < 0 || size_t(id) >= values_.size()) throw InvalidArgument(fmt::format("value id {} does not exist", id));
  return values_[size_t(id)];
}

const TensorValue& Graph::tensor_at(ValueId id) const {
  const auto* t = std::get_if<TensorValue>(&value(id));
  if (!t) throw InvalidArgument(fmt::format("value {} is a {}, not a tensor", id, value_kind(value(id))));
  return *t;
}
TensorValue& Graph::tensor_at(ValueId id) { return const_cast<TensorValue&>(std::as_const(*this).tensor_at(id)); }

std::string Graph::dump() const {
  std::string s;
  static constexpr const char* roles[] = {"", "input ", "const ", "state "};
  for (size_t i = 0; i < values_.size(); ++i) {
    const Value& v = values_[i];
    s += fmt::format("%{} = ", i);
    if (auto* t = std::get_if<TensorValue>(&v))
      s += fmt::format("{}{}{} {} '{}'", roles[int(t->role)], t->is_output ? "output " : "", dtype_name(t->dtype),
                       t->infer_dims ? "[inferred]" : dims_str(t->max_dims), t->name);
    else if (auto* si = std::get_if<SymIntValue>(&v)) s += fmt::format("symint {}", si->value);
    else if (auto* iv = std::get_if<int64_t>(&v)) s += fmt::format("int {}", *iv);
    else if (auto* dv = std::get_if<double>(&v)) s += fmt::format("double {}", *dv);
    else if (auto* bv = std::get_if<bool>(&v)) s += fmt::format("bool {}", *bv);
    else if (auto* il = std::get_if<IntList>(&v)) s += fmt::format("int_list [{}]", fmt::join(*il, ", "));
    else if (auto* vl = std::get_if<ValueList>(&v)) s += fmt::format("value_list [{}]", fmt::join(vl->ids, ", "));
    else if (auto* st = std::get_if<std::string>(&v)) s += fmt::format("string \"{}\"", *st);
    else s += "none";
    s += "\n";
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    std::vector<std::string> a;
    for (ValueId id : n.args) a.push_back(fmt::format("%{}", id));
    s += fmt::format("node {} [{}{}]: {}({})\n", i, n.label, n.layer >= 0 ? fmt::format(" L{}", n.layer) : "", n.op,
                     fmt::join(a, ", "));
  }
  return s;
}

}  // namespace wgrt
