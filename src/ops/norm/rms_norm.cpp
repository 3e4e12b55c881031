// et_vk.rms_norm.default(x [..., D] f32, weight [D] f32, eps double, out [..., D] f32):
//   out = x / sqrt(mean(x^2 over the last dim) + eps) * weight   (row-wise; as torch.nn.RMSNorm / Llama's
//   RMSNorm computed in f32). One workgroup per row (rms_norm.wgsl); the output takes x's live dims.
#include <vector>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct RmsParams {
  uint32_t rows, D;
  float eps;
  uint32_t pad;
};
WGRT_UNIFORM(RmsParams, rows, D, eps, pad);

// Shared by both ops: x at argument 0, weight at `wi`, eps at `wi + 1`; checks and returns D.
int64_t check_norm_args(OpBuilder& b, size_t wi) {
  b.check_dtype(0, DType::F32);
  b.check_dtype(wi, DType::F32);
  b.check_rank(0, 1, 8);
  const int64_t D = b.tensor(0).dims.back();
  b.check(D > 0, "x '{}' has an empty last dim", b.tensor(0).name);
  b.check(b.tensor(wi).dims == Dims{D}, "weight '{}' {} must be [{}] (the last dim of x)", b.tensor(wi).name,
          dims_str(b.tensor(wi).dims), D);
  b.check(b.real_arg(wi + 1) >= 0, "eps must be >= 0, got {}", b.real_arg(wi + 1));
  return D;
}

// Resize: every output in `outs` takes x's live dims (a residual argument, if any, must match them); one
// workgroup per row.
void on_resize_rows(OpBuilder& b, int64_t D, float eps, std::vector<size_t> outs, UniformRef u, DispatchRef d,
                    int residual = -1) {
  b.on_resize([=](ResizeContext& r) {
    const Dims xd = r.tensor(0).dims;
    if (xd.empty() || xd.back() != D)
      r.fail("x '{}' has live dims {}; the last dim must stay {}", r.tensor(0).name, dims_str(xd), D);
    if (residual >= 0 && r.tensor(size_t(residual)).dims != xd)
      r.fail("live residual {} differs from x {}", dims_str(r.tensor(size_t(residual)).dims), dims_str(xd));
    for (size_t o : outs) r.set_dims(o, xd);
    const uint64_t rows = uint64_t(numel(xd) / D);
    r.set_uniform(u, RmsParams{uint32_t(rows), uint32_t(D), eps, 0});
    r.set_workgroups(d, rows);
  });
}

void build_rms_norm(OpBuilder& b) {
  b.check_args(4);
  b.check_dtype(3, DType::F32);
  const int64_t D = check_norm_args(b, 1);
  UniformRef u = b.uniform<RmsParams>();
  DispatchRef d = b.dispatch({"ops/norm/rms_norm.wgsl", "main", {}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), Binding::tensor(b.arg(3)), u});
  on_resize_rows(b, D, float(b.real_arg(2)), {3}, u, d);
}

// wgrt.add_rms_norm.default(x, residual, weight, eps, sum_out, out): sum_out = x + residual and
// out = rms_norm(sum_out) * weight in one dispatch (the residual add of a transformer block fused with the
// next block's input norm). x, residual, sum_out and out share x's shape.
void build_add_rms_norm(OpBuilder& b) {
  b.check_args(6);
  const int64_t D = check_norm_args(b, 2);
  for (size_t i : {size_t(1), size_t(4), size_t(5)}) b.check_dtype(i, DType::F32);
  b.check(b.tensor(1).dims == b.tensor(0).dims, "residual {} must have x's shape {}", dims_str(b.tensor(1).dims),
          dims_str(b.tensor(0).dims));
  UniformRef u = b.uniform<RmsParams>();
  DispatchRef d = b.dispatch({"ops/norm/add_rms_norm.wgsl", "main", {}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), Binding::tensor(b.arg(2)),
                              Binding::tensor(b.arg(4)), Binding::tensor(b.arg(5)), u});
  on_resize_rows(b, D, float(b.real_arg(3)), {4, 5}, u, d, 1);
}

}  // namespace

void register_norm_ops(OpRegistry& r) {
  r.add({"et_vk.rms_norm.default", build_rms_norm, {"ops/norm/rms_norm.wgsl:main"}, true});
  r.add({"wgrt.add_rms_norm.default", build_add_rms_norm, {"ops/norm/add_rms_norm.wgsl:main"}, true});
}

}  // namespace wgrt::ops
