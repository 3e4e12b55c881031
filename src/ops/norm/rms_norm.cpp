// et_vk.rms_norm.default(x [..., D] f32, weight [D] f32, eps double, out [..., D] f32):
//   out = x / sqrt(mean(x^2 over the last dim) + eps) * weight   (row-wise; as torch.nn.RMSNorm / Llama's
//   RMSNorm computed in f32). One workgroup per row (rms_norm.wgsl); the output takes x's live dims.
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

void build_rms_norm(OpBuilder& b) {
  b.check_args(4);
  b.check_dtype(0, DType::F32);
  b.check_dtype(1, DType::F32);
  b.check_dtype(3, DType::F32);
  b.check_rank(0, 1, 8);
  const int64_t D = b.tensor(0).dims.back();
  b.check(D > 0, "x '{}' has an empty last dim", b.tensor(0).name);
  b.check(b.tensor(1).dims == Dims{D}, "weight '{}' {} must be [{}] (the last dim of x)", b.tensor(1).name,
          dims_str(b.tensor(1).dims), D);
  const double eps = b.real_arg(2);
  b.check(eps >= 0, "eps must be >= 0, got {}", eps);
  UniformRef u = b.uniform(sizeof(RmsParams));
  using webgpu::BindingType;
  DispatchRef d = b.dispatch({"ops/norm/rms_norm.wgsl", "main",
                              {BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage, BindingType::Storage, BindingType::Uniform},
                              {}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), Binding::tensor(b.arg(3)), u});
  b.on_resize([=](ResizeContext& r) {
    const Dims xd = r.tensor(0).dims;
    if (xd.empty() || xd.back() != D)
      r.fail("x '{}' has live dims {}; the last dim must stay {}", r.tensor(0).name, dims_str(xd), D);
    r.set_dims(3, xd);
    const uint64_t rows = uint64_t(numel(xd) / D);
    r.set_uniform(u, RmsParams{uint32_t(rows), uint32_t(D), float(eps), 0});
    r.set_workgroups(d, rows);
  });
}

}  // namespace

void register_norm_ops(OpRegistry& r) {
  r.add({"et_vk.rms_norm.default", build_rms_norm, {"ops/norm/rms_norm.wgsl:main"}, true});
}

}  // namespace wgrt::ops
