// 2-D pooling on f32 x [N, C, H, W] or [C, H, W] (PyTorch semantics, output size as ATen's
// pooling_output_shape: floor or ceil_mode, a window may not start in the right/bottom padding):
//   aten.max_pool2d_with_indices.default(x, kernel IntList, stride IntList ([] = kernel), padding IntList,
//       dilation IntList, ceil_mode bool, out): values only; the indices output of PyTorch is NOT produced.
//   aten.avg_pool2d.default(x, kernel, stride, padding, ceil_mode bool, count_include_pad bool,
//       divisor_override int | None, out)
// IntLists take 1 value (both dims) or 2 (h, w). padding must be <= half the (effective) kernel, as PyTorch
// requires. One kernel (pool2d.wgsl), one invocation per output, folded grid. N, H, W may change between
// executes (resize hook). Errors: InvalidArgument naming the node.
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct PoolParams {
  uint32_t total, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, include_pad, divisor, pad;
};
WGRT_UNIFORM(PoolParams, total, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, include_pad, divisor, pad);

std::pair<int64_t, int64_t> pair_arg(OpBuilder& b, size_t i, const char* what, std::pair<int64_t, int64_t> dflt) {
  const IntList& l = b.int_list(i);
  if (l.empty()) return dflt;
  b.check(l.size() == 1 || l.size() == 2, "{} must have 1 or 2 values, got {}", what, l.size());
  return {l[0], l.size() == 2 ? l[1] : l[0]};
}

// ATen pooling_output_shape.
int64_t pooled(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode) {
  const int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}

void build_pool(OpBuilder& b, bool max) {
  b.check_args(max ? 7 : 8);
  const size_t oi = b.num_args() - 1;
  b.check_dtype(0, DType::F32);
  b.check_dtype(oi, DType::F32);
  b.check_rank(0, 3, 4);
  const auto [kh, kw] = pair_arg(b, 1, "kernel_size", {0, 0});
  b.check(kh > 0 && kw > 0, "kernel_size must be positive, got [{}, {}]", kh, kw);
  const auto [sh, sw] = pair_arg(b, 2, "stride", {kh, kw});
  const auto [ph, pw] = pair_arg(b, 3, "padding", {0, 0});
  std::pair<int64_t, int64_t> dil{1, 1};
  bool ceil_mode = false, include_pad = true;
  int64_t divisor = 0;
  if (max) {
    dil = pair_arg(b, 4, "dilation", {1, 1});
    ceil_mode = b.bool_arg(5);
  } else {
    ceil_mode = b.bool_arg(4);
    include_pad = b.bool_arg(5);
    if (!b.is_none(6)) {
      divisor = b.int_arg(6);
      b.check(divisor > 0, "divisor_override must be positive, got {}", divisor);
    }
  }
  const auto [dh, dw] = dil;
  b.check(sh > 0 && sw > 0 && dh > 0 && dw > 0, "stride and dilation must be positive");
  b.check(ph >= 0 && pw >= 0 && ph <= ((kh - 1) * dh + 1) / 2 && pw <= ((kw - 1) * dw + 1) / 2,
          "padding [{}, {}] must be >= 0 and at most half the effective kernel", ph, pw);
  UniformRef u = b.uniform<PoolParams>();
  DispatchRef d = b.dispatch({"ops/pool/pool2d.wgsl", "main", {{"MODE", max ? 0.0 : 1.0}}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(oi)), u});
  const size_t rank = b.tensor(0).dims.size();
  // Init-captures: clang < 16 (Emscripten 3.1.6, the browser build) cannot capture structured bindings.
  b.on_resize([=, kh = kh, kw = kw, sh = sh, sw = sw, ph = ph, pw = pw, dh = dh, dw = dw](ResizeContext& r) {
    Dims x = r.tensor(0).dims;
    if (x.size() != rank) r.fail("x '{}' live rank changed: {}", r.tensor(0).name, dims_str(x));
    const int64_t H = x[rank - 2], W = x[rank - 1];
    const int64_t OH = pooled(H, kh, ph, sh, dh, ceil_mode), OW = pooled(W, kw, pw, sw, dw, ceil_mode);
    if (OH <= 0 || OW <= 0) r.fail("x {} with kernel [{}, {}] gives an empty output", dims_str(x), kh, kw);
    Dims od = x;
    od[rank - 2] = OH;
    od[rank - 1] = OW;
    if (numel(od) >= (int64_t(1) << 32) || numel(x) >= (int64_t(1) << 32)) r.fail("x {} too large", dims_str(x));
    r.set_dims(oi, od);
    PoolParams p{uint32_t(numel(od)), uint32_t(H), uint32_t(W), uint32_t(OH), uint32_t(OW), uint32_t(kh), uint32_t(kw),
                 uint32_t(sh), uint32_t(sw), uint32_t(ph), uint32_t(pw), uint32_t(dh), uint32_t(dw), include_pad,
                 uint32_t(divisor), 0};
    r.set_uniform(u, p);
    r.set_invocations(d, p.total);
  });
}

}  // namespace

void register_pool_ops(OpRegistry& r) {
  const std::vector<std::string> k = {"ops/pool/pool2d.wgsl:main"};
  r.add({"aten.max_pool2d_with_indices.default", [](OpBuilder& b) { build_pool(b, true); }, k, true});
  r.add({"aten.avg_pool2d.default", [](OpBuilder& b) { build_pool(b, false); }, k, true});
}

}  // namespace wgrt::ops
