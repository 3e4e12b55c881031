// The built-in op registry: every op family registers here (one line per family).
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt {

void register_builtin_ops(OpRegistry& r) {
  ops::register_symint_ops(r);
  ops::register_binary_ops(r);
  ops::register_unary_ops(r);
}

}  // namespace wgrt
