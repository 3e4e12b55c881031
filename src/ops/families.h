// Registration functions of the op families (one per file under src/ops/). all_ops.cpp calls them all.
#pragma once

namespace wgrt {
class OpRegistry;
namespace ops {
void register_symint_ops(OpRegistry& r);       // symint/symint_ops.cpp
void register_binary_ops(OpRegistry& r);       // elementwise/binary.cpp
void register_unary_ops(OpRegistry& r);        // elementwise/unary.cpp
}  // namespace ops
}  // namespace wgrt
