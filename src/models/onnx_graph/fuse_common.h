// Helpers shared by the ONNX node-pattern fusions (fuse_layernorm.h, fuse_patterns.h): who reads a value, node
// shape tests, and host-known scalars at lowering time.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats/onnx/onnx_file.h"
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

// The nodes reading each value of a model (each node once per value), and the graph outputs.
class Consumers {
 public:
  explicit Consumers(const Model& m) : m_(m) {
    for (size_t i = 0; i < m.nodes.size(); ++i) {
      std::set<std::string> seen;
      for (const auto& in : m.nodes[i].inputs)
        if (!in.empty() && seen.insert(in).second) by_[in].push_back(i);
    }
    for (const auto& o : m.outputs) outputs_.insert(o.name);
  }
  // The one node reading `v` (which must not be a graph output), or nullptr.
  const Node* sole(const std::string& v, size_t* index) const {
    auto it = by_.find(v);
    if (outputs_.count(v) || it == by_.end() || it->second.size() != 1) return nullptr;
    *index = it->second[0];
    return &m_.nodes[*index];
  }
  const std::vector<size_t>& of(const std::string& v) const {
    static const std::vector<size_t> none;
    auto it = by_.find(v);
    return it == by_.end() ? none : it->second;
  }
  bool is_output(const std::string& v) const { return outputs_.count(v) > 0; }

 private:
  const Model& m_;
  std::map<std::string, std::vector<size_t>> by_;
  std::set<std::string> outputs_;
};

inline bool is(const Node* n, const char* op, size_t inputs) {
  return n && n->op_type == op && n->domain.empty() && n->inputs.size() == inputs && n->outputs.size() == 1;
}

// The other input of a binary node whose one input is `v` ("" if neither or both).
inline std::string other(const Node& n, const std::string& v) {
  if (n.inputs[0] == v && n.inputs[1] != v) return n.inputs[1];
  if (n.inputs[1] == v && n.inputs[0] != v) return n.inputs[0];
  return "";
}

// A host-known float scalar (numel 1) of the lowering, or nullopt.
inline std::optional<double> host_scalar(Lowering& l, const std::string& name) {
  auto it = l.vals.find(name);
  if (it == l.vals.end() || !it->second.host || it->second.host->numel() != 1 || !it->second.host->is_float()) return std::nullopt;
  return it->second.host->at(0);
}

}  // namespace wgrt::onnx
