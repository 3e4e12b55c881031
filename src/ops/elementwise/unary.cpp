// Elementwise unary ops on f32 tensors of any shape (output shape = input shape), one kernel per op, each the
// shared body (ops/elementwise/unary_body.wgsl) around the op's expression (ops/elementwise/unary/<name>.wgsl):
//   aten.silu.default(x, out)                     x * sigmoid(x)
//   aten.gelu.default(x, approximate, out)        approximate "none": 0.5x(1+erf(x/sqrt2)); "tanh": GELU tanh form
//   aten.sigmoid.default(x, out), aten.relu.default(x, out), aten.tanh.default(x, out), aten.neg.default(x, out),
//   aten.abs.default(x, out)
//   aten.leaky_relu.default(x, negative_slope, out)
//   aten.hardswish.default(x, out)                x * relu6(x + 3) / 6
//   aten.clamp.default(x, min|None, max|None, out)
//   aten.exp/log/sqrt/reciprocal/erf/floor/ceil/round/sign/sin/cos.default(x, out), aten.softplus.default(x,
//       beta (must be 1), threshold (ignored: computed stably), out), aten.elu.default(x, alpha, scale (1),
//       input_scale (1), out)
//   wgrt.hard_sigmoid.default(x, alpha, beta, out)  max(0, min(1, alpha x + beta)) (ONNX HardSigmoid)
//   wgrt.selu.default(x, alpha, gamma, out)         gamma (x > 0 ? x : alpha (e^x - 1)) (ONNX Selu)
//   wgrt.softsign.default(x, out)                   x / (1 + |x|)
//   wgrt.scale.default(x, s, out)                 x * s (gemma's embedding scale)
//   wgrt.softcap.default(x, c, out)               c * tanh(x / c), c > 0 (gemma's logit soft-capping, llama.cpp's
//                                                 scale-tanh-scale)
// Semantics follow PyTorch's definitions of these functions.
#include <cmath>
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

std::string unary_kernel(const char* name) { return fmt::format("ops/elementwise/unary/{}.wgsl", name); }

// Builds a unary node with kernel unary/<name>.wgsl: x is argument 0, out the last argument; p0/p1 are the
// op's scalar arguments as the kernel reads them.
void build_unary(OpBuilder& b, const char* name, float p0 = 0, float p1 = 0) {
  size_t out = b.num_args() - 1;
  b.check_dtype(0, DType::F32);
  b.check_dtype(out, DType::F32);
  UniformRef params = b.uniform<UnaryParams>();
  DispatchRef d = b.dispatch({unary_kernel(name), "main", {}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(out)), params});
  b.on_resize([=](ResizeContext& r) {
    const Dims dims = r.tensor(0).dims;
    r.set_dims(out, dims);
    r.set_uniform(params, UnaryParams{uint32_t(numel(dims)), p0, p1, 0});
    r.set_invocations(d, numel(dims));
  });
}

// An op of one argument whose kernel is unary/<kernel>.wgsl.
OpDef simple(std::string op, const char* kernel) {
  return {std::move(op), [kernel](OpBuilder& b) { b.check_args(2); build_unary(b, kernel); }, {unary_kernel(kernel) + ":main"}};
}

}  // namespace

void register_unary_ops(OpRegistry& r) {
  r.add(simple("aten.silu.default", "silu"));
  r.add(simple("aten.sigmoid.default", "sigmoid"));
  r.add(simple("aten.relu.default", "relu"));
  r.add(simple("aten.tanh.default", "tanh"));
  r.add(simple("aten.neg.default", "neg"));
  r.add(simple("aten.hardswish.default", "hardswish"));
  r.add(simple("aten.abs.default", "abs"));
  for (const char* k : {"exp", "log", "sqrt", "reciprocal", "erf", "floor", "ceil", "round", "sign", "sin", "cos"})
    r.add(simple(fmt::format("aten.{}.default", k), k));
  r.add(simple("wgrt.softsign.default", "softsign"));
  auto two_reals = [](const char* op, const char* kernel) {
    return OpDef{op,
                 [kernel](OpBuilder& b) {
                   b.check_args(4);
                   build_unary(b, kernel, float(b.real_arg(1)), float(b.real_arg(2)));
                 },
                 {unary_kernel(kernel) + ":main"}};
  };
  r.add(two_reals("wgrt.hard_sigmoid.default", "hard_sigmoid"));
  r.add(two_reals("wgrt.selu.default", "selu"));
  r.add({"aten.softplus.default",
         [](OpBuilder& b) {
           b.check_args(4);
           b.check(b.real_arg(1) == 1.0, "beta must be 1, got {}", b.real_arg(1));
           build_unary(b, "softplus");
         },
         {unary_kernel("softplus") + ":main"}});
  r.add({"aten.elu.default",
         [](OpBuilder& b) {
           b.check_args(5);
           b.check(b.real_arg(2) == 1.0 && b.real_arg(3) == 1.0, "scale and input_scale must be 1");
           build_unary(b, "elu", float(b.real_arg(1)));
         },
         {unary_kernel("elu") + ":main"}});
  r.add({"aten.gelu.default",
         [](OpBuilder& b) {
           b.check_args(3);
           std::string approx = "none";
           if (auto* s = std::get_if<std::string>(&b.value(1))) approx = *s;
           else b.check(b.is_none(1), "argument 1 (approximate) must be a string");
           b.check(approx == "none" || approx == "tanh", "approximate must be 'none' or 'tanh', got '{}'", approx);
           build_unary(b, approx == "tanh" ? "gelu_tanh" : "gelu_erf");
         },
         {unary_kernel("gelu_erf") + ":main", unary_kernel("gelu_tanh") + ":main"}});
  r.add({"aten.leaky_relu.default",
         [](OpBuilder& b) {
           b.check_args(3);
           build_unary(b, "leaky_relu", float(b.real_arg(1)));
         },
         {unary_kernel("leaky_relu") + ":main"}});
  r.add({"wgrt.scale.default",
         [](OpBuilder& b) {
           b.check_args(3);
           build_unary(b, "scale", float(b.real_arg(1)));
         },
         {unary_kernel("scale") + ":main"}});
  r.add({"wgrt.softcap.default",
         [](OpBuilder& b) {
           b.check_args(3);
           const double c = b.real_arg(1);
           b.check(std::isfinite(c) && c > 0, "soft cap {} must be finite and > 0", c);
           build_unary(b, "softcap", float(c));
         },
         {unary_kernel("softcap") + ":main"}});
  r.add({"aten.clamp.default",
         [](OpBuilder& b) {
           b.check_args(4);
           float lo = b.is_none(1) ? -std::numeric_limits<float>::infinity() : float(b.real_arg(1));
           float hi = b.is_none(2) ? std::numeric_limits<float>::infinity() : float(b.real_arg(2));
           build_unary(b, "clamp", lo, hi);
         },
         {unary_kernel("clamp") + ":main"}});
}

}  // namespace wgrt::ops
