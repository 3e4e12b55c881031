// The op registry: standard op names -> implementations.
//
// An op is small and declarative. Its build function (run once per node by ExecutableGraph::build):
//   1. validates its arguments (dtypes, ranks, shapes, alignment) with b.check()/b.fail(), which name the
//      node and op in the message;
//   2. declares uniform parameter blocks, scratch buffers and dispatches (kernel + bindings, routes);
//   3. registers a resize hook that recomputes the live output dims, the uniform params and the grids from
//      the live input dims and SymInts. The hook runs once at build (at max shapes) and at every execute.
// The framework does the rest: pipelines (cached), bind groups, memory planning, grid folding past
// maxComputeWorkgroupsPerDimension, encoding, profiling labels.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wgrt {

class OpBuilder;

struct OpDef {
  std::string name;                  // standard name, e.g. "et_vk.rms_norm.default"
  std::function<void(OpBuilder&)> build;
  // Every "<shader>:<entry>" build() may dispatch (for `wgrt ops`). Checked: a dispatch of a kernel not listed
  // here fails the build (OpBuilder::dispatch), and tests/core/registry_test.cpp checks each listed kernel exists.
  std::vector<std::string> kernels;
  bool resizable = true;  // build() registers a resize hook (dynamic shapes); checked after every build()
};

class OpRegistry {
 public:
  // The registry with every built-in op (registered on first use, from ops/all_ops.cpp).
  static const OpRegistry& builtin();
  void add(OpDef def);  // throws InvalidArgument on a duplicate name
  const OpDef* find(const std::string& name) const;
  const std::map<std::string, OpDef>& all() const { return ops_; }

 private:
  std::map<std::string, OpDef> ops_;
};

// Defined in ops/all_ops.cpp: calls each op family's register function.
void register_builtin_ops(OpRegistry& r);

}  // namespace wgrt
