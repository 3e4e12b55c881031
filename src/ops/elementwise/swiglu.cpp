// wgrt.swiglu.default(x [..., 2H] f32, out [..., H] f32): out = silu(x[..., :H]) * x[..., H:].
// wgrt.geglu.default(x [..., 2H] f32, out [..., H] f32): out = gelu_tanh(x[..., :H]) * x[..., H:] (Gemma's
//   GeGLU; gelu_tanh as aten.gelu(approximate="tanh")).
// The SwiGLU feed-forward gate of Llama/Qwen (Shazeer 2020, "GLU Variants Improve Transformer") in one
// dispatch, for a gate and up projection computed by one linear over concatenated weights [gate; up].
// (wgrt's own op: ATen has no fused SwiGLU; it equals aten.silu(gate) followed by aten.mul(., up).)
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct SwigluParams {
  uint32_t n, h, a, b;
};
WGRT_UNIFORM(SwigluParams, n, h, a, b);

void build_glu(OpBuilder& b, bool gelu) {
  b.check_args(2);
  b.check_dtype(0, DType::F32);
  b.check_dtype(1, DType::F32);
  b.check_rank(0, 1, 8);
  const int64_t two_h = b.tensor(0).dims.back();
  b.check(two_h % 2 == 0 && two_h > 0, "the last dim of '{}' ({}) must be even (gate | up)", b.tensor(0).name, two_h);
  UniformRef params = b.uniform<SwigluParams>();
  DispatchRef d = b.dispatch({"ops/elementwise/swiglu.wgsl", "main", {{"GELU", gelu ? 1.0 : 0.0}}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), params});
  b.on_resize([=](ResizeContext& r) {
    Dims dims = r.tensor(0).dims;
    if (dims.empty() || dims.back() != two_h) r.fail("x has live dims {}; the last dim must stay {}", dims_str(dims), two_h);
    dims.back() = two_h / 2;
    r.set_dims(1, dims);
    SwigluParams p{uint32_t(numel(dims)), uint32_t(two_h / 2), 0, 0};
    r.set_uniform(params, p);
    r.set_invocations(d, p.n);
  });
}

}  // namespace

void register_swiglu_ops(OpRegistry& r) {
  r.add({"wgrt.swiglu.default", [](OpBuilder& b) { build_glu(b, false); }, {"ops/elementwise/swiglu.wgsl:main"}, true});
  r.add({"wgrt.geglu.default", [](OpBuilder& b) { build_glu(b, true); }, {"ops/elementwise/swiglu.wgsl:main"}, true});
}

}  // namespace wgrt::ops
