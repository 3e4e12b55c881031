// aten.add.Tensor(a, b, alpha, out), aten.sub.Tensor(a, b, alpha, out), aten.mul.Tensor(a, b, out),
// aten.div.Tensor(a, b, out), aten.pow.Tensor_Tensor(a, b, out) (a^b; negative a with integral b gives the
// signed power, a^0 = 1), aten.maximum.default(a, b, out), aten.minimum.default(a, b, out) (NaN if either
// is NaN): f32, NumPy broadcasting, rank <= 8 (PyTorch semantics: add/sub compute
// a +- alpha * b). One implementation for all four, each kernel the shared body (binary_body.wgsl) around
// the op's expression (binary/<name>.wgsl); two routes: same-shape (direct indexing) and broadcast.
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/elementwise/broadcast.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

std::string binary_kernel(const char* name) { return fmt::format("ops/elementwise/binary/{}.wgsl", name); }

struct BinaryParams {
  uint32_t n, rank;
  float alpha;
  uint32_t pad;
  uint32_t out_dims[8], a_strides[8], b_strides[8];
};
WGRT_UNIFORM(BinaryParams, n, rank, alpha, pad, out_dims, a_strides, b_strides);

// Builds a binary node with kernel binary/<name>.wgsl.
void build_binary(OpBuilder& b, const char* name, bool has_alpha) {
  b.check_args(has_alpha ? 4 : 3);
  size_t out = has_alpha ? 3 : 2;
  for (size_t i : {size_t(0), size_t(1), out}) b.check_dtype(i, DType::F32);
  float alpha = has_alpha ? float(b.real_arg(2)) : 1.0f;
  for (size_t i : {size_t(0), size_t(1)}) b.check_rank(i, 0, 8);
  b.check(broadcast_shape(b.tensor(0).dims, b.tensor(1).dims).has_value(), "shapes {} and {} do not broadcast",
          dims_str(b.tensor(0).dims), dims_str(b.tensor(1).dims));
  UniformRef params = b.uniform<BinaryParams>();
  std::vector<Binding> binds = {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), Binding::tensor(b.arg(out)), params};
  auto spec = [&](bool bcast) {
    return webgpu::KernelSpec{binary_kernel(name), "main", {{"BROADCAST", bcast ? 1.0 : 0.0}}, {}};
  };
  DispatchRef same = b.dispatch(spec(false), binds, 0);
  DispatchRef bcast = b.dispatch(spec(true), binds, 1);
  b.on_resize([=](ResizeContext& r) {
    const Dims& da = r.tensor(0).dims;
    const Dims& db = r.tensor(1).dims;
    auto shape = broadcast_shape(da, db);
    if (!shape) r.fail("shapes {} and {} do not broadcast", dims_str(da), dims_str(db));
    r.set_dims(out, *shape);
    BinaryParams p{};
    p.n = uint32_t(numel(*shape));
    p.alpha = alpha;
    auto sa = broadcast_strides(da, *shape), sb = broadcast_strides(db, *shape);
    Dims cd = *shape;
    collapse_broadcast(cd, sa, sb);  // fewer dims: less index math per element
    p.rank = uint32_t(cd.size());
    for (size_t k = 0; k < cd.size(); ++k) {
      p.out_dims[k] = uint32_t(cd[k]);
      p.a_strides[k] = sa[k];
      p.b_strides[k] = sb[k];
    }
    r.set_uniform(params, p);
    bool direct = da == *shape && db == *shape;
    r.select_route(direct ? 0 : 1);
    r.set_invocations(direct ? same : bcast, p.n);
  });
}

}  // namespace

void register_binary_ops(OpRegistry& r) {
  // Init-captures: clang < 16 (Emscripten 3.1.6, the browser build) cannot capture structured bindings.
  for (auto [op, kernel, alpha] : {std::tuple{"aten.add.Tensor", "add", true}, {"aten.sub.Tensor", "sub", true},
                                   {"aten.mul.Tensor", "mul", false}, {"aten.div.Tensor", "div", false},
                                   {"aten.pow.Tensor_Tensor", "pow", false}, {"aten.maximum.default", "maximum", false},
                                   {"aten.minimum.default", "minimum", false}})
    r.add({op, [kernel = kernel, alpha = alpha](OpBuilder& b) { build_binary(b, kernel, alpha); }, {binary_kernel(kernel) + ":main"}});
}

}  // namespace wgrt::ops
