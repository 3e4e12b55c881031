// wgrt.reduce_axis.default(x f32 (rank 1..8), dim int, mode string, out f32): reduction over one dim, kept as
// size 1 (out.dims = x.dims with dims[dim] = 1). mode: "sum", "mean", "max", "min", "prod", "sum_square"
// (sum of x^2), "sum_abs" (sum of |x|), "log_sum_exp" (log(sum(exp(x))), max-shifted). Multi-axis ONNX
// reductions are chains of these (each mode composes: a mean of means over equal-sized groups is the mean).
// One kernel (reduce_axis.wgsl, MODE override), one invocation per output, sequential f32 accumulation over
// the dim. Other dims may change between executes (resize hook). Errors: InvalidArgument naming the node.
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include <algorithm>

#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct ReduceParams {
  uint32_t outer, R, inner, total;
};
WGRT_UNIFORM(ReduceParams, outer, R, inner, total);

const std::vector<std::string> kModes = {"sum", "mean", "max", "min", "prod", "sum_square", "sum_abs", "log_sum_exp"};

void build_reduce(OpBuilder& b) {
  b.check_args(4);
  b.check_dtype(0, DType::F32);
  b.check_dtype(3, DType::F32);
  b.check_rank(0, 1, 8);
  const int64_t rank = int64_t(b.tensor(0).dims.size());
  int64_t dim = b.int_arg(1);
  b.check(dim >= -rank && dim < rank, "dim {} is out of range for rank {}", dim, rank);
  if (dim < 0) dim += rank;
  const auto* mode = std::get_if<std::string>(&b.value(2));
  b.check(mode != nullptr, "argument 2 (mode) must be a string");
  auto it = std::find(kModes.begin(), kModes.end(), *mode);
  b.check(it != kModes.end(), "unknown mode '{}'", *mode);
  const double m = double(it - kModes.begin());
  UniformRef u = b.uniform<ReduceParams>();
  DispatchRef d = b.dispatch({"ops/reduce/reduce_axis.wgsl", "main", {{"MODE", m}}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(3)), u});
  b.on_resize([=](ResizeContext& r) {
    Dims xd = r.tensor(0).dims;
    if (int64_t(xd.size()) != rank) r.fail("x '{}' live rank changed: {}", r.tensor(0).name, dims_str(xd));
    if (xd[size_t(dim)] <= 0) r.fail("x '{}' {}: cannot reduce an empty dim", r.tensor(0).name, dims_str(xd));
    if (numel(xd) >= (int64_t(1) << 32)) r.fail("x {} too large for 32-bit indexing", dims_str(xd));
    const int64_t outer = numel(Dims(xd.begin(), xd.begin() + dim)), inner = numel(Dims(xd.begin() + dim + 1, xd.end()));
    const int64_t R = xd[size_t(dim)];
    xd[size_t(dim)] = 1;
    r.set_dims(3, xd);
    r.set_uniform(u, ReduceParams{uint32_t(outer), uint32_t(R), uint32_t(inner), uint32_t(outer * inner)});
    r.set_invocations(d, uint64_t(outer * inner));
  });
}

}  // namespace

void register_reduce_axis_ops(OpRegistry& r) {
  r.add({"wgrt.reduce_axis.default", build_reduce, {"ops/reduce/reduce_axis.wgsl:main"}, true});
}

}  // namespace wgrt::ops
