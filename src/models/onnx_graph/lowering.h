// The ONNX importer's per-node context: the node being lowered, its inputs (host-known values or GPU
// tensors), its attributes with opset defaults, and the helpers that emit wgrt graph nodes. One Lowering
// lives for the whole graph; `node` moves along the topological order.
//
// Every tensor's dims are concrete here: a graph is built for one set of input dims (OnnxModel builds and
// caches one executable per input-dims signature), so shape computations fold on the host.
// Device tensors are f32 (ONNX float; other element types on the device are refused naming the node);
// host tensors may have any element type (shape math in int64).
#pragma once
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/onnx/onnx_file.h"
#include "graph/graph.h"
#include "models/onnx_graph/host_tensor.h"
#include "wgrt/error.h"

namespace wgrt::onnx {

struct Val {
  ElemType type = ElemType::Float;
  Dims dims;
  std::optional<HostTensor> host;  // known at import time
  ValueId id = -1;                 // device tensor (for host values: once materialized)
  bool graph_input = false;        // a model input (a device one may be re-bound as a host value)
};

// Thrown when a node needs the values of a float model input that is bound on the device: the caller
// (OnnxModel) rebuilds with that input bound as a host value (its values then key the compiled graph).
class NeedsHostInput : public Unsupported {
 public:
  NeedsHostInput(const std::string& msg, std::string input) : Unsupported(msg), input(std::move(input)) {}
  std::string input;
};

class Lowering {
 public:
  Lowering(const Model& m, Graph& g) : model(m), g(g) {}
  const Model& model;
  Graph& g;
  std::map<std::string, Val> vals;
  const Node* node = nullptr;
  int64_t opset() const { return model.opset; }

  // Inputs. i counts the node's inputs; an omitted optional input ("" or past the end) is !has().
  size_t num_inputs() const { return node->inputs.size(); }
  bool has(size_t i) const { return i < node->inputs.size() && !node->inputs[i].empty(); }
  const Val& in(size_t i) const;
  const Dims& dims(size_t i) const { return in(i).dims; }
  size_t rank(size_t i) const { return in(i).dims.size(); }
  bool is_host(size_t i) const { return in(i).host.has_value(); }
  bool all_host() const;                   // every present input is host-known
  const HostTensor& host(size_t i) const;  // fails unless host-known ("must be a constant")
  ValueId gpu(size_t i);                   // the input as an f32 device tensor (uploads host floats once)
  ValueId gpu_of(const Val& v, const std::string& name);

  // Attributes (ONNX defaults passed by the caller, from the operator's spec for this opset).
  bool has_attr(const char* name) const { return node->attrs.count(name) > 0; }
  int64_t attr_int(const char* name, int64_t dflt) const;
  float attr_float(const char* name, float dflt) const;
  std::string attr_str(const char* name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const char* name, std::vector<int64_t> dflt = {}) const;
  std::vector<float> attr_floats(const char* name) const;
  // Refuses attributes outside `known` (so an attribute wgrt does not implement is never ignored).
  void known_attrs(std::initializer_list<const char*> known) const;

  // Outputs.
  size_t num_outputs() const { return node->outputs.size(); }
  bool wants(size_t o) const { return o < node->outputs.size() && !node->outputs[o].empty(); }
  void set_host(size_t o, HostTensor h);
  void set_gpu(size_t o, ValueId id, Dims dims);  // a device f32 tensor
  void alias_output(size_t o, size_t i);          // output o is input i (Identity)

  // Graph emission: a new f32 intermediate of `dims`, appended as the node's last argument.
  ValueId emit(const std::string& op, std::vector<ValueId> args, Dims dims, const std::string& suffix = "");
  ValueId view(ValueId x, const Dims& dims);      // aten.view_copy
  ValueId permute(ValueId x, const Dims& in_dims, const std::vector<int64_t>& perm);
  ValueId constant_f32(const std::string& name, Dims dims, std::vector<float> v);
  std::string label(const std::string& suffix = "") const;

  // Device tensor dims: every dim >= 0 and at most 2^40 elements (else Unsupported naming the node).
  void check_device_dims(const Dims& d) const;
  // An attribute/constant int that sizes or steps a window: in [lo, 2^24], else fails naming it.
  int64_t bounded(int64_t v, int64_t lo, const char* what) const;
  // Normalizes an axis in [-rank, rank) (fails naming the node otherwise).
  int64_t axis(int64_t a, size_t rank, const char* what = "axis") const;

  template <typename... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    throw InvalidArgument(where() + fmt::format(f, std::forward<A>(a)...));
  }
  template <typename... A>
  [[noreturn]] void unsupported(fmt::format_string<A...> f, A&&... a) const {
    throw Unsupported(where() + fmt::format(f, std::forward<A>(a)...));
  }
  template <typename... A>
  void check(bool ok, fmt::format_string<A...> f, A&&... a) const {
    if (!ok) fail(f, std::forward<A>(a)...);
  }
  std::string where() const;  // "ONNX node 'name' (Op): "

 private:
  const Attribute* attr(const char* name) const;
  int uploads_ = 0;
};

// One ONNX operator the importer knows: `lower` maps a node onto host values or graph nodes.
struct OpRule {
  std::string op;
  int64_t since = 1;  // first default-domain opset whose semantics `lower` implements
  void (*lower)(Lowering&);
};

std::vector<OpRule> elementwise_rules();  // lower_elementwise.cpp
std::vector<OpRule> nn_rules();           // lower_nn.cpp
std::vector<OpRule> shape_rules();        // lower_shape.cpp
std::vector<OpRule> reduce_rules();       // lower_reduce.cpp
std::vector<OpRule> matmul_rules();       // lower_matmul.cpp
std::vector<OpRule> resize_rules();       // lower_resize.cpp

}  // namespace wgrt::onnx
