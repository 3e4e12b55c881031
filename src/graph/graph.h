// Graph: the device-free description of a computation, built by model builders and then compiled by
// ExecutableGraph::build (executable.h).
//
// Values are tensors, SymInts and scalar/list arguments; nodes name an op by its standard name
// ("aten.add.Tensor", "et_vk.rms_norm.default", "llama.sdpa_with_kv_cache.default", ...) and list their
// argument value ids in the op's schema order, outputs last (as ExecuTorch's serialized graphs do).
// Nodes must be added in a valid execution order (every argument produced before use).
#pragma once
#include <string>
#include <vector>

#include "graph/value.h"

namespace wgrt {

struct Node {
  std::string op;
  std::vector<ValueId> args;
  std::string label;  // e.g. "blk.3.attn_q"; shows in errors and profiles
  int layer = -1;     // transformer layer, when the builder knows it
};

class Graph {
 public:
  // Tensors. max_dims sizes the buffer; the live dims start equal to max_dims.
  ValueId input(std::string name, DType dtype, Dims max_dims);
  ValueId constant(std::string name, DType dtype, Dims dims, ConstantData data);  // bytes must match dims
  ValueId state(std::string name, DType dtype, Dims dims);                        // persistent, zeroed (KV cache)
  ValueId tensor(DType dtype, Dims max_dims, std::string name = "");              // intermediate
  ValueId tensor_like(DType dtype, std::string name = "");  // intermediate whose max dims the producing op infers
  void output(ValueId tensor);                              // read back after execute

  // Scalars and lists.
  ValueId symint(int64_t initial = 0);
  ValueId int_value(int64_t v);
  ValueId real(double v);
  ValueId boolean(bool v);
  ValueId int_list(IntList v);
  ValueId value_list(std::vector<ValueId> ids);
  ValueId none();
  ValueId string(std::string s);

  // Appends a node. Validation happens at build (unknown op names fail there, naming op and node).
  void op(std::string name, std::vector<ValueId> args, std::string label = "", int layer = -1);

  // Builder state for labels: nodes added while a layer is set carry it.
  void set_layer(int layer) { layer_ = layer; }

  const std::vector<Value>& values() const { return values_; }
  std::vector<Value>& values() { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& nodes() { return nodes_; }  // for graph passes (ops/conv/conv_fusion.h): keep the order valid
  const std::vector<ValueId>& outputs() const { return outputs_; }
  const Value& value(ValueId id) const;
  TensorValue& tensor_at(ValueId id);  // throws InvalidArgument if id is not a tensor
  const TensorValue& tensor_at(ValueId id) const;

  // Readable text dump: one line per value and per node.
  std::string dump() const;

 private:
  ValueId add(Value v);
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> outputs_;
  int layer_ = -1;
};

}  // namespace wgrt
