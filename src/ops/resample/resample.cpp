// Resampling and padding ops, f32, PyTorch semantics:
//   aten.upsample_nearest2d.vec(x [N, C, H, W] or [C, H, W], output_size IntList [OH, OW] | None,
//       scale_factors | None, out)
//   aten.upsample_bilinear2d.vec(x, output_size | None, align_corners bool, scale_factors | None, out)
//     Exactly one of output_size / scale_factors is given. scale_factors is an IntList of two integers or a
//     single Double applied to both dims (the graph has no double lists); then OH = floor(H * sh) and the kernels use 1/sh as the source scale, as ATen
//     does when recompute_scale_factor is not set. Otherwise the scale is H/OH (bilinear with align_corners:
//     (H-1)/(OH-1), 0 when OH == 1).
//   aten.constant_pad_nd.default(x (rank <= 8), pad IntList, value double, out): pad = [lo_last, hi_last,
//     lo_prev, hi_prev, ...] (pairs from the last dim backwards, as F.pad); negative values crop. 32-bit dtypes.
// All ops take live dims in their resize hooks. Errors: InvalidArgument naming the node.
#include <cmath>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {


struct UpParams {
  uint32_t total, H, W, OH, OW, align_corners;
  float scale_h, scale_w;
};
WGRT_UNIFORM(UpParams, total, H, W, OH, OW, align_corners, scale_h, scale_w);

// Reads scale_factors: None -> empty; an IntList of two ints, or one Double / Int for both dims.
std::vector<double> scale_factors(OpBuilder& b, size_t i) {
  if (b.is_none(i)) return {};
  std::vector<double> s;
  if (auto* l = std::get_if<IntList>(&b.value(i))) {
    for (int64_t v : *l) s.push_back(double(v));
  } else if (std::holds_alternative<double>(b.value(i)) || std::holds_alternative<int64_t>(b.value(i))) {
    s = {b.real_arg(i), b.real_arg(i)};
  } else {
    b.fail("scale_factors must be None, an IntList of 2 or one Double, got {}", value_kind(b.value(i)));
  }
  b.check(s.size() == 2 && s[0] > 0 && s[1] > 0, "scale_factors must be 2 positive values");
  return s;
}

void build_upsample(OpBuilder& b, bool bilinear) {
  b.check_args(bilinear ? 5 : 4);
  const size_t oi = b.num_args() - 1, si = bilinear ? 3 : 2;
  b.check_dtype(0, DType::F32);
  b.check_dtype(oi, DType::F32);
  b.check_rank(0, 3, 4);
  const bool align = bilinear && b.bool_arg(2);
  IntList osize;
  if (!b.is_none(1)) osize = b.int_list(1);
  const std::vector<double> sf = scale_factors(b, si);
  b.check(osize.empty() != sf.empty(), "exactly one of output_size and scale_factors must be given");
  if (!osize.empty()) b.check(osize.size() == 2 && osize[0] > 0 && osize[1] > 0, "output_size must be 2 positive values");
  UniformRef u = b.uniform<UpParams>();
  DispatchRef d = b.dispatch({"ops/resample/upsample2d.wgsl", "main", {{"MODE", bilinear ? 1.0 : 0.0}}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(oi)), u});
  const size_t rank = b.tensor(0).dims.size();
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (x.size() != rank) r.fail("x '{}' live rank changed: {}", r.tensor(0).name, dims_str(x));
    const int64_t H = x[rank - 2], W = x[rank - 1];
    const int64_t OH = osize.empty() ? int64_t(std::floor(double(H) * sf[0])) : osize[0];
    const int64_t OW = osize.empty() ? int64_t(std::floor(double(W) * sf[1])) : osize[1];
    if (H <= 0 || W <= 0 || OH <= 0 || OW <= 0) r.fail("x {} gives an empty output [{}, {}]", dims_str(x), OH, OW);
    Dims od = x;
    od[rank - 2] = OH;
    od[rank - 1] = OW;
    if (numel(od) >= (int64_t(1) << 32) || numel(x) >= (int64_t(1) << 32)) r.fail("out {} too large", dims_str(od));
    r.set_dims(oi, od);
    auto scale = [&](int64_t in, int64_t out, size_t k) -> float {
      if (align) return out > 1 ? float(in - 1) / float(out - 1) : 0.0f;
      if (!sf.empty()) return float(1.0 / sf[k]);
      return float(in) / float(out);
    };
    UpParams p{uint32_t(numel(od)), uint32_t(H), uint32_t(W), uint32_t(OH), uint32_t(OW), align, scale(H, OH, 0), scale(W, OW, 1)};
    r.set_uniform(u, p);
    r.set_invocations(d, p.total);
  });
}

struct PadParams {
  uint32_t n, rank;
  float value;
  uint32_t pad;
  uint32_t out_dims[8], in_dims[8];
  int32_t lo[8];
  uint32_t in_strides[8];
};
WGRT_UNIFORM(PadParams, n, rank, value, pad, out_dims, in_dims, lo, in_strides);

void build_constant_pad(OpBuilder& b) {
  b.check_args(4);
  const DType t = b.tensor(0).dtype;
  b.check(t == DType::F32, "x '{}' must be f32, got {}", b.tensor(0).name, dtype_name(t));
  b.check_dtype(3, DType::F32);
  b.check_rank(0, 1, 8);
  const IntList pad = b.int_list(1);
  const size_t rank = b.tensor(0).dims.size();
  b.check(pad.size() % 2 == 0 && pad.size() <= 2 * rank, "pad {} must have an even length <= 2 * rank ({})", dims_str(pad),
          2 * rank);
  const float value = float(b.real_arg(2));
  UniformRef u = b.uniform<PadParams>();
  DispatchRef d = b.dispatch({"ops/resample/constant_pad.wgsl", "main", {}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(3)), u});
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (x.size() != rank) r.fail("x '{}' live rank changed: {}", r.tensor(0).name, dims_str(x));
    PadParams p{};
    p.rank = uint32_t(rank);
    p.value = value;
    Dims od = x;
    int64_t stride = 1;
    for (size_t k = rank; k-- > 0;) {
      const size_t j = rank - 1 - k;  // pair index from the last dim
      const int64_t lo = 2 * j < pad.size() ? pad[2 * j] : 0, hi = 2 * j < pad.size() ? pad[2 * j + 1] : 0;
      od[k] = x[k] + lo + hi;
      if (od[k] < 0) r.fail("pad {} makes dim {} of x {} negative", dims_str(pad), k, dims_str(x));
      p.out_dims[k] = uint32_t(od[k]);
      p.in_dims[k] = uint32_t(x[k]);
      p.lo[k] = int32_t(lo);
      p.in_strides[k] = uint32_t(stride);
      stride *= x[k];
    }
    if (numel(od) >= (int64_t(1) << 32) || numel(x) >= (int64_t(1) << 32)) r.fail("out {} too large", dims_str(od));
    r.set_dims(3, od);
    p.n = uint32_t(numel(od));
    r.set_uniform(u, p);
    r.set_invocations(d, p.n);
  });
}

}  // namespace

void register_resample_ops(OpRegistry& r) {
  const std::vector<std::string> k = {"ops/resample/upsample2d.wgsl:main"};
  r.add({"aten.upsample_nearest2d.vec", [](OpBuilder& b) { build_upsample(b, false); }, k, true});
  r.add({"aten.upsample_bilinear2d.vec", [](OpBuilder& b) { build_upsample(b, true); }, k, true});
  r.add({"aten.constant_pad_nd.default", build_constant_pad, {"ops/resample/constant_pad.wgsl:main"}, true});
}

}  // namespace wgrt::ops
