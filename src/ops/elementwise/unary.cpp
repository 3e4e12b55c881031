// Elementwise unary ops on f32 tensors of any shape (output shape = input shape), one shared kernel:
//   aten.silu.default(x, out)                     x * sigmoid(x)
//   aten.gelu.default(x, approximate, out)        approximate "none": 0.5x(1+erf(x/sqrt2)); "tanh": GELU tanh form
//   aten.sigmoid.default(x, out), aten.relu.default(x, out), aten.tanh.default(x, out), aten.neg.default(x, out)
//   aten.leaky_relu.default(x, negative_slope, out)
//   aten.hardswish.default(x, out)                x * relu6(x + 3) / 6
//   aten.clamp.default(x, min|None, max|None, out)
// Semantics follow PyTorch's definitions of these functions.
#include <limits>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct UnaryParams {
  uint32_t n;
  float p0, p1;
  uint32_t pad;
};
WGRT_UNIFORM(UnaryParams, n, p0, p1, pad);

enum UnaryOp : uint32_t { Silu, GeluErf, GeluTanh, Sigmoid, Relu, Tanh, LeakyRelu, Hardswish, Clamp, Neg };

// Builds a unary node: x is argument 0, out the last argument; p0/p1 from the op's scalar arguments.
void build_unary(OpBuilder& b, UnaryOp op, float p0, float p1) {
  size_t out = b.num_args() - 1;
  b.check_dtype(0, DType::F32);
  b.check_dtype(out, DType::F32);
  UniformRef params = b.uniform<UnaryParams>();
  DispatchRef d = b.dispatch({"ops/elementwise/unary.wgsl", "main", {{"OP", double(op)}}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(out)), params});
  b.on_resize([=](ResizeContext& r) {
    const Dims dims = r.tensor(0).dims;
    r.set_dims(out, dims);
    UnaryParams p{uint32_t(numel(dims)), p0, p1, 0};
    r.set_uniform(params, p);
    r.set_invocations(d, p.n);
  });
}

OpDef simple(const char* name, UnaryOp op) {
  return {name, [op](OpBuilder& b) { b.check_args(2); build_unary(b, op, 0, 0); }, {"ops/elementwise/unary.wgsl:main"}, true};
}

}  // namespace

void register_unary_ops(OpRegistry& r) {
  const std::vector<std::string> k = {"ops/elementwise/unary.wgsl:main"};
  r.add(simple("aten.silu.default", Silu));
  r.add(simple("aten.sigmoid.default", Sigmoid));
  r.add(simple("aten.relu.default", Relu));
  r.add(simple("aten.tanh.default", Tanh));
  r.add(simple("aten.neg.default", Neg));
  r.add(simple("aten.hardswish.default", Hardswish));
  r.add({"aten.gelu.default",
         [](OpBuilder& b) {
           b.check_args(3);
           std::string approx = "none";
           if (auto* s = std::get_if<std::string>(&b.value(1))) approx = *s;
           else b.check(b.is_none(1), "argument 1 (approximate) must be a string");
           b.check(approx == "none" || approx == "tanh", "approximate must be 'none' or 'tanh', got '{}'", approx);
           build_unary(b, approx == "tanh" ? GeluTanh : GeluErf, 0, 0);
         },
         k, true});
  r.add({"aten.leaky_relu.default",
         [](OpBuilder& b) {
           b.check_args(3);
           build_unary(b, LeakyRelu, float(b.real_arg(1)), 0);
         },
         k, true});
  r.add({"aten.clamp.default",
         [](OpBuilder& b) {
           b.check_args(4);
           float lo = b.is_none(1) ? -std::numeric_limits<float>::infinity() : float(b.real_arg(1));
           float hi = b.is_none(2) ? std::numeric_limits<float>::infinity() : float(b.real_arg(2));
           build_unary(b, Clamp, lo, hi);
         },
         k, true});
}

}  // namespace wgrt::ops
