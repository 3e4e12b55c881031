#include "graph/op_registry.h"

#include <fmt/format.h>

#include "wgrt/error.h"

namespace wgrt {

const OpRegistry& OpRegistry::builtin() {
  static const OpRegistry r = [] {
    OpRegistry reg;
    register_builtin_ops(reg);
    return reg;
  }();
  return r;
}

void OpRegistry::add(OpDef def) {
  if (ops_.count(def.name)) throw InvalidArgument(fmt::format("op '{}' registered twice", def.name));
  std::string name = def.name;
  ops_.emplace(std::move(name), std::move(def));
}

const OpDef* OpRegistry::find(const std::string& name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

}  // namespace wgrt
