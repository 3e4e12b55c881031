// aten._softmax.default(x f32 [..., D], dim int, half_to_float bool, out f32 [..., D]):
//   softmax along `dim`, which must be the last dim (-1 allowed); half_to_float must be false (activations
//   are f32). Numerically stable (max subtracted); rows entirely -inf give zeros, not NaN (softmax.wgsl).
//   Every live dim may change between executes, D included (it is a uniform).
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct RowParams {
  uint32_t rows, D, pad0, pad1;
};
WGRT_UNIFORM(RowParams, rows, D, pad0, pad1);

void build_softmax(OpBuilder& b) {
  b.check_args(4);
  b.check_dtype(0, DType::F32);
  b.check_dtype(3, DType::F32);
  b.check_rank(0, 1, 8);
  const int64_t rank = int64_t(b.tensor(0).dims.size());
  int64_t dim = b.int_arg(1);
  if (dim < 0) dim += rank;
  b.check(dim == rank - 1, "dim {} must be the last dim of x '{}' {} (-1 or {})", b.int_arg(1), b.tensor(0).name,
          dims_str(b.tensor(0).dims), rank - 1);
  b.check(!b.bool_arg(2), "half_to_float = true needs an f16 input; activations are f32");
  const int64_t D = b.tensor(0).dims.back();
  b.check(D > 0, "x '{}' has an empty last dim", b.tensor(0).name);
  UniformRef u = b.uniform<RowParams>();
  DispatchRef d = b.dispatch({"ops/reduce/softmax.wgsl", "main", {}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(3)), u});
  b.on_resize([=](ResizeContext& r) {
    const Dims xd = r.tensor(0).dims;
    const int64_t Dl = xd.empty() ? 0 : xd.back();
    if (xd.size() != size_t(rank) || Dl <= 0) r.fail("x '{}' has live dims {}: rank {} with a non-empty last dim needed", r.tensor(0).name, dims_str(xd), rank);
    r.set_dims(3, xd);
    const uint64_t rows = uint64_t(numel(xd) / Dl);
    r.set_uniform(u, RowParams{uint32_t(rows), uint32_t(Dl), 0, 0});
    r.set_workgroups(d, rows);
  });
}

}  // namespace

void register_softmax_ops(OpRegistry& r) {
  r.add({"aten._softmax.default", build_softmax, {"ops/reduce/softmax.wgsl:main"}, true});
}

}  // namespace wgrt::ops
