// Shared argument checks and side dispatches of the fused linear ops (linear_fusion.h).
#include "ops/linear/linear_fusion.h"

namespace wgrt::ops {

Fusion fusion_args(OpBuilder& b, const Dims& xd, int64_t N) {
  const int64_t K = xd.back();
  Fusion f;
  if (!b.is_none(5)) {
    f.norm = 5;
    b.check_dtype(5, DType::F32);
    b.check(b.tensor(5).dims == Dims{K}, "norm_weight '{}' {} must be [{}]", b.tensor(5).name, dims_str(b.tensor(5).dims), K);
    f.eps = float(b.real_arg(6));
    b.check(f.eps >= 0, "eps must be >= 0, got {}", f.eps);
  }
  if (!b.is_none(7)) {
    f.res = 7;
    b.check_dtype(7, DType::F32);
  }
  f.act = int(b.int_arg(8));
  b.check(f.act >= 0 && f.act <= 2, "act must be 0 (none), 1 (silu GLU) or 2 (gelu-tanh GLU), got {}", f.act);
  b.check(!(f.act && f.res >= 0), "a residual with a GLU activation is not supported");
  b.check(!(f.res >= 0 && !b.is_none(4)), "a residual with a bias is not supported");
  b.check(f.act == 0 || N % 2 == 0, "a GLU needs an even number of weight rows ([gate; up]), got {}", N);
  if (f.res >= 0) {
    Dims rd = xd;
    rd.back() = N;
    b.check(b.tensor(7).dims == rd, "residual '{}' {} must be {}", b.tensor(7).name, dims_str(b.tensor(7).dims),
            dims_str(rd));
  }
  return f;
}

SideDispatch add_side_norm(OpBuilder& b, Binding x, Binding nw, Binding xn, int route) {
  UniformRef u = b.uniform<RmsParams>();
  return {b.dispatch({"ops/norm/rms_norm.wgsl", "main", {}, {}}, {x, nw, xn, u}, route), u};
}

SideDispatch add_side_glu(OpBuilder& b, int act, Binding y, Binding out, int route) {
  UniformRef u = b.uniform<GluParams>();
  return {b.dispatch({"ops/elementwise/swiglu.wgsl", "main", {{"GELU", act == 2 ? 1.0 : 0.0}}, {}}, {y, out, u}, route), u};
}

Dims resize_fusion(ResizeContext& r, const Fusion& fu, const std::vector<SideDispatch>& norms,
                   const std::vector<SideDispatch>& glus, Dims d, int64_t N) {
  const int64_t K = d.back(), M = numel(d) / K, H = fu.act ? N / 2 : N;
  d.back() = N;
  if (fu.res >= 0 && r.tensor(size_t(fu.res)).dims != d)
    r.fail("live residual {} differs from the output {}", dims_str(r.tensor(size_t(fu.res)).dims), dims_str(d));
  d.back() = H;
  for (const SideDispatch& s : norms) {
    r.set_uniform(s.u, RmsParams{uint32_t(M), uint32_t(K), fu.eps, 0});
    r.set_workgroups(s.d, uint64_t(M));
  }
  for (const SideDispatch& s : glus) {
    r.set_uniform(s.u, GluParams{uint32_t(M * H), uint32_t(H), 0, 0});
    r.set_invocations(s.d, uint64_t(M * H));
  }
  return d;
}

}  // namespace wgrt::ops
