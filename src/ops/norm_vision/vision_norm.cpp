// Normalisation ops of vision encoders, f32, PyTorch semantics (biased variance, eps inside the sqrt).
//   aten.native_layer_norm.default(x [..., *normalized_shape], normalized_shape IntList, weight | None,
//       bias | None, eps double, out): normalises over the trailing dims named by normalized_shape; weight/bias
//       have shape normalized_shape. Only the normalised output is produced: PyTorch's mean and rstd outputs
//       are not (graphs pass a single `out`).
//   aten.native_group_norm.default(x [N, C, *], weight [C] | None, bias [C] | None, N int, C int, HxW int,
//       group int, eps double, out): statistics per (n, group) over C/group channels x HxW elements. Only the
//       normalised output is produced (no mean/rstd).
//   aten._native_batch_norm_legit_no_training.default(x [N, C, *], weight [C] | None, bias [C] | None,
//       running_mean [C], running_var [C], momentum double (unused), eps double, out): inference batch norm.
// LayerNorm and GroupNorm share group_rows_norm.wgsl (one workgroup per row, folded grid); batch norm is
// elementwise (batch_norm.wgsl). Leading dims (and N, HxW) may change between executes (resize hooks); the
// normalised / channel dims must stay. Errors: InvalidArgument naming the node.
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct RowsParams {
  uint32_t rows, L, G, inner;
  float eps;
  uint32_t has_w, has_b, pad;
};
WGRT_UNIFORM(RowsParams, rows, L, G, inner, eps, has_w, has_b, pad);
struct BnParams {
  uint32_t n, C, inner, has_w, has_b;
  float eps;
  uint32_t pad0, pad1;
};
WGRT_UNIFORM(BnParams, n, C, inner, has_w, has_b, eps, pad0, pad1);


// Checks an optional affine tensor argument: None or f32 with dims `want`.
bool affine_arg(OpBuilder& b, size_t i, const Dims& want, const char* what) {
  if (b.is_none(i)) return false;
  b.check_dtype(i, DType::F32);
  b.check(b.tensor(i).dims == want, "{} '{}' {} must be {}", what, b.tensor(i).name, dims_str(b.tensor(i).dims), dims_str(want));
  return true;
}

DispatchRef rows_dispatch(OpBuilder& b, size_t wi, size_t bi, size_t oi, UniformRef u) {
  const Binding xb = Binding::tensor(b.arg(0));
  return b.dispatch({"ops/norm_vision/group_rows_norm.wgsl", "main", {}, {}},
                    {xb, b.is_none(wi) ? xb : Binding::tensor(b.arg(wi)), b.is_none(bi) ? xb : Binding::tensor(b.arg(bi)),
                     Binding::tensor(b.arg(oi)), u});
}

void build_layer_norm(OpBuilder& b) {
  b.check_args(6);
  b.check_dtype(0, DType::F32);
  b.check_dtype(5, DType::F32);
  const IntList ns = b.int_list(1);
  const Dims xd = b.tensor(0).dims;
  b.check(!ns.empty() && ns.size() <= xd.size(), "normalized_shape {} must be 1..{} trailing dims of x {}",
          dims_str(ns), xd.size(), dims_str(xd));
  b.check(Dims(xd.end() - ns.size(), xd.end()) == ns, "normalized_shape {} must equal the trailing dims of x {}",
          dims_str(ns), dims_str(xd));
  const int64_t L = numel(ns);
  b.check(L > 0, "normalized_shape {} is empty", dims_str(ns));
  const bool hw = affine_arg(b, 2, ns, "weight"), hb = affine_arg(b, 3, ns, "bias");
  const double eps = b.real_arg(4);
  b.check(eps >= 0, "eps must be >= 0, got {}", eps);
  UniformRef u = b.uniform<RowsParams>();
  DispatchRef d = rows_dispatch(b, 2, 3, 5, u);
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (x.size() < ns.size() || Dims(x.end() - ns.size(), x.end()) != ns)
      r.fail("x '{}' has live dims {}; the trailing dims must stay {}", r.tensor(0).name, dims_str(x), dims_str(ns));
    r.set_dims(5, x);
    const uint64_t rows = uint64_t(numel(x) / L);
    r.set_uniform(u, RowsParams{uint32_t(rows), uint32_t(L), 1, 1, float(eps), hw, hb, 0});
    r.set_workgroups(d, rows);
  });
}

void build_group_norm(OpBuilder& b) {
  b.check_args(9);
  b.check_dtype(0, DType::F32);
  b.check_dtype(8, DType::F32);
  b.check_rank(0, 2, 8);
  const int64_t C = b.tensor(0).dims[1], G = b.int_arg(6);
  b.check(b.int_arg(4) == C, "C argument {} differs from x's channel dim {}", b.int_arg(4), C);
  b.check(G >= 1 && C % G == 0, "group {} must divide C = {}", G, C);
  const bool hw = affine_arg(b, 1, {C}, "weight"), hb = affine_arg(b, 2, {C}, "bias");
  const double eps = b.real_arg(7);
  b.check(eps >= 0, "eps must be >= 0, got {}", eps);
  UniformRef u = b.uniform<RowsParams>();
  DispatchRef d = rows_dispatch(b, 1, 2, 8, u);
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (x.size() < 2 || x[1] != C) r.fail("x '{}' has live dims {}; dim 1 must stay {}", r.tensor(0).name, dims_str(x), C);
    const int64_t inner = numel(x) / std::max<int64_t>(1, x[0] * C);
    if (inner <= 0 || x[0] <= 0) r.fail("x '{}' {} is empty", r.tensor(0).name, dims_str(x));
    r.set_dims(8, x);
    const uint64_t rows = uint64_t(x[0] * G);
    r.set_uniform(u, RowsParams{uint32_t(rows), uint32_t(C / G * inner), uint32_t(G), uint32_t(inner), float(eps), hw, hb, 0});
    r.set_workgroups(d, rows);
  });
}

void build_batch_norm(OpBuilder& b) {
  b.check_args(8);
  b.check_dtype(0, DType::F32);
  b.check_dtype(7, DType::F32);
  b.check_rank(0, 2, 8);
  const int64_t C = b.tensor(0).dims[1];
  const bool hw = affine_arg(b, 1, {C}, "weight"), hb = affine_arg(b, 2, {C}, "bias");
  b.check(affine_arg(b, 3, {C}, "running_mean") && affine_arg(b, 4, {C}, "running_var"),
          "running_mean and running_var are required");
  const double eps = b.real_arg(6);
  b.check(eps >= 0, "eps must be >= 0, got {}", eps);
  UniformRef u = b.uniform<BnParams>();
  const Binding xb = Binding::tensor(b.arg(0));
  DispatchRef d = b.dispatch({"ops/norm_vision/batch_norm.wgsl", "main", {}, {}},
                             {xb, hw ? Binding::tensor(b.arg(1)) : xb, hb ? Binding::tensor(b.arg(2)) : xb,
                              Binding::tensor(b.arg(3)), Binding::tensor(b.arg(4)), Binding::tensor(b.arg(7)), u});
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (x.size() < 2 || x[1] != C) r.fail("x '{}' has live dims {}; dim 1 must stay {}", r.tensor(0).name, dims_str(x), C);
    r.set_dims(7, x);
    const uint64_t n = uint64_t(numel(x));
    const uint64_t inner = x[0] * C > 0 ? n / uint64_t(x[0] * C) : 1;
    r.set_uniform(u, BnParams{uint32_t(n), uint32_t(C), uint32_t(std::max<uint64_t>(inner, 1)), hw, hb, float(eps), 0, 0});
    r.set_invocations(d, n);
  });
}

}  // namespace

void register_vision_norm_ops(OpRegistry& r) {
  r.add({"aten.native_layer_norm.default", build_layer_norm, {"ops/norm_vision/group_rows_norm.wgsl:main"}, true});
  r.add({"aten.native_group_norm.default", build_group_norm, {"ops/norm_vision/group_rows_norm.wgsl:main"}, true});
  r.add({"aten._native_batch_norm_legit_no_training.default", build_batch_norm, {"ops/norm_vision/batch_norm.wgsl:main"},
         true});
}

}  // namespace wgrt::ops
