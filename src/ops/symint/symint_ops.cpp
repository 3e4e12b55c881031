// SymInt ops: host-side scalar computations run by the resize pass at every execute, so one graph serves
// prefill and decode (e.g. input_pos read from a host input, sequence length from a live dim).
//   et_vk.select_as_symint.default(Tensor x, int dim, int index, SymInt out): out = x[index] along `dim`
//       (every other dim of x must be 1); x must be an i32 graph input (host int64 ids are narrowed on input).
//   aten.sym_size.int(Tensor x, int dim, SymInt out): out = live size of x along dim (negative dim counts
//       from the end).
//   executorch_prim.{add,sub,mul,floordiv}.Scalar(a, b, SymInt out): a, b Int or SymInt; floordiv rounds
//       toward negative infinity (Python semantics); division by zero is an error.
#include <fmt/format.h>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

void build_select_as_symint(OpBuilder& b) {
  b.check_args(4);
  b.check_dtype(0, DType::I32);
  b.check(b.tensor(0).role == TensorRole::Input, "tensor '{}' must be a graph input (its host data is read)", b.tensor(0).name);
  b.check(std::holds_alternative<SymIntValue>(b.value(3)), "argument 3 must be a symint");
  b.on_resize([](ResizeContext& r) {
    const TensorValue& x = r.tensor(0);
    int64_t rank = int64_t(x.dims.size());
    int64_t dim = r.int_arg(1), index = r.int_arg(2);
    if (dim < 0) dim += rank;
    if (dim < 0 || dim >= rank) r.fail("dim {} out of range for rank {}", r.int_arg(1), rank);
    for (int64_t k = 0; k < rank; ++k)
      if (k != dim && x.dims[size_t(k)] != 1) r.fail("tensor '{}' {} must be 1 outside dim {}", x.name, dims_str(x.dims), dim);
    if (index < 0) index += x.dims[size_t(dim)];
    auto host = r.input_host_i32(0);
    if (index < 0 || size_t(index) >= host.size())
      r.fail("index {} out of range for input '{}' with {} elements", r.int_arg(2), x.name, host.size());
    r.set_symint(3, host[size_t(index)]);
  });
}

void build_sym_size(OpBuilder& b) {
  b.check_args(3);
  b.tensor(0);
  b.check(std::holds_alternative<SymIntValue>(b.value(2)), "argument 2 must be a symint");
  b.on_resize([](ResizeContext& r) {
    const TensorValue& x = r.tensor(0);
    int64_t rank = int64_t(x.dims.size()), dim = r.int_arg(1);
    if (dim < 0) dim += rank;
    if (dim < 0 || dim >= rank) r.fail("dim {} out of range for rank {}", r.int_arg(1), rank);
    r.set_symint(2, x.dims[size_t(dim)]);
  });
}

template <typename F>
OpDef arith(const char* name, F f) {
  return OpDef{name,
               [f](OpBuilder& b) {
                 b.check_args(3);
                 b.int_arg(0);
                 b.int_arg(1);
                 b.check(std::holds_alternative<SymIntValue>(b.value(2)), "argument 2 must be a symint");
                 b.on_resize([f](ResizeContext& r) { r.set_symint(2, f(r, r.int_arg(0), r.int_arg(1))); });
               },
               {},
               true};
}

}  // namespace

void register_symint_ops(OpRegistry& r) {
  r.add({"et_vk.select_as_symint.default", build_select_as_symint, {}, true});
  r.add({"aten.sym_size.int", build_sym_size, {}, true});
  r.add(arith("executorch_prim.add.Scalar", [](ResizeContext&, int64_t a, int64_t b) { return a + b; }));
  r.add(arith("executorch_prim.sub.Scalar", [](ResizeContext&, int64_t a, int64_t b) { return a - b; }));
  r.add(arith("executorch_prim.mul.Scalar", [](ResizeContext&, int64_t a, int64_t b) { return a * b; }));
  r.add(arith("executorch_prim.floordiv.Scalar", [](ResizeContext& r, int64_t a, int64_t b) {
    if (b == 0) r.fail("floor division by zero");
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }));
}

}  // namespace wgrt::ops
