// aten.convolution.default(x [N, C, H, W] f32, weight [O, C/groups, kh, kw] f32, bias [O] f32 | None,
//                          stride IntList, padding IntList, dilation IntList, transposed bool,
//                          output_padding IntList, groups int, out [N, O, OH, OW] f32)
// PyTorch semantics (torch.nn.functional.conv2d): zero padding, OH = (H + 2*ph - dh*(kh-1) - 1) / sh + 1
// (floor). stride/padding/dilation take 1 value (both dims) or 2 (h, w). Only 2-D convolution (4-D x);
// transposed = true: the transposed convolution (conv_transpose2d; weight [C, O/groups, kh, kw], OH = (H-1)*sh -
// 2*ph + dh*(kh-1) + output_padding_h + 1) by a direct gather kernel (conv_transpose.wgsl), one invocation per
// output, or, when kernel == stride with no padding, dilation or output_padding (upsampling without overlap), by
// conv_transpose_phase.wgsl, one invocation per input pixel and block of output channels. Routes of the forward
// convolution (fixed at build by groups):
//   groups == 1: the shared GEMM (the device's choice, ops/linear/gemm.h) with an implicit-im2col B loader
//     (conv_gemm.wgsl tiled, conv_gemm_cpu.wgsl on CPU adapters), batch = images;
//   groups > 1 (grouped, depthwise): direct convolution (conv_direct.wgsl), one invocation per output, 1-D grid
//     folded past maxComputeWorkgroupsPerDimension.
// wgrt.convolution_epilogue.default(the same 9 inputs, epilogue str, out): the same, with the elementwise
//   program `epilogue` (conv_epilogue.h) applied to every output in the kernel's store (fuse_conv_epilogues
//   makes these from a convolution and the elementwise nodes after it). N, H, W may change between executes
// (resize hook); C must stay the build-time value. Errors: InvalidArgument naming the node (bad ranks,
// channel/group mismatch, non-positive stride/dilation, negative padding, empty output).
#include <algorithm>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/conv/conv_epilogue.h"
#include "ops/linear/gemm.h"
#include "wgrt/error.h"

namespace wgrt::ops {

namespace {

struct ConvParams {
  uint32_t N, C, H, W, O, OH, OW, groups, kh, kw, sh, sw, ph, pw, dh, dw, cpg, opg, K, has_bias, tiles_n, tiles_m,
      total, pad;
};
WGRT_UNIFORM(ConvParams, N, C, H, W, O, OH, OW, groups, kh, kw, sh, sw, ph, pw, dh, dw, cpg, opg, K, has_bias, tiles_n, tiles_m, total, pad);
static_assert(sizeof(ConvParams) == 96);

// A 2-D IntList argument: 1 value (repeated) or 2.
std::pair<int64_t, int64_t> pair_arg(OpBuilder& b, size_t i, const char* what) {
  const IntList& l = b.int_list(i);
  b.check(l.size() == 1 || l.size() == 2, "{} must have 1 or 2 values, got {}", what, l.size());
  return {l[0], l.size() == 2 ? l[1] : l[0]};
}

void build_conv(OpBuilder& b, bool fused) {
  b.check_args(fused ? 11 : 10);
  const size_t oi = fused ? 10 : 9;  // the output
  for (size_t i : {size_t(0), size_t(1), oi}) b.check_dtype(i, DType::F32);
  std::vector<std::pair<std::string, double>> epi;
  if (fused) {
    const auto* text = std::get_if<std::string>(&b.value(9));
    b.check(text != nullptr, "argument 9 must be the epilogue string");
    try {
      epi = epilogue_constants(parse_epilogue(*text));
    } catch (const InvalidArgument& e) {
      b.fail("{}", e.what());
    }
  }
  b.check_rank(0, 4, 4);
  b.check_rank(1, 4, 4);
  const bool transposed = b.bool_arg(6);
  const Dims xd = b.tensor(0).dims, wd = b.tensor(1).dims;
  const int64_t groups = b.int_arg(8);
  if (transposed) b.check(groups >= 1 && xd[1] == wd[0] && wd[0] % groups == 0, "transposed: x '{}' {} must have weight '{}' {}'s first dim of channels, a multiple of groups {}", b.tensor(0).name, dims_str(xd), b.tensor(1).name, dims_str(wd), groups);
  const int64_t C = xd[1], O = transposed ? wd[1] * groups : wd[0];
  b.check(groups >= 1, "groups must be >= 1, got {}", groups);
  b.check(C % groups == 0 && O % groups == 0, "channels in {} and out {} must be multiples of groups {}", C, O, groups);
  b.check(transposed || wd[1] * groups == C, "weight '{}' {} must have C/groups = {} input channels (x '{}' {})", b.tensor(1).name,
          dims_str(wd), C / groups, b.tensor(0).name, dims_str(xd));
  b.check(wd[2] > 0 && wd[3] > 0 && O > 0, "weight '{}' {} is empty", b.tensor(1).name, dims_str(wd));
  const auto [sh, sw] = pair_arg(b, 3, "stride");
  const auto [ph, pw] = pair_arg(b, 4, "padding");
  const auto [dh, dw] = pair_arg(b, 5, "dilation");
  b.check(sh > 0 && sw > 0, "stride must be positive, got [{}, {}]", sh, sw);
  b.check(dh > 0 && dw > 0, "dilation must be positive, got [{}, {}]", dh, dw);
  b.check(ph >= 0 && pw >= 0, "padding must be >= 0, got [{}, {}]", ph, pw);
  const auto [oph, opw] = b.int_list(7).empty() ? std::pair<int64_t, int64_t>{0, 0} : pair_arg(b, 7, "output_padding");
  b.check(transposed || (oph == 0 && opw == 0), "output_padding must be 0 for a non-transposed convolution");
  b.check(oph >= 0 && opw >= 0 && (oph < sh || oph < dh) && (opw < sw || opw < dw), "output_padding [{}, {}] must be smaller than stride or dilation", oph, opw);
  const bool has_bias = !b.is_none(2);
  if (has_bias) {
    b.check_dtype(2, DType::F32);
    b.check(b.tensor(2).dims == Dims{O}, "bias '{}' {} must be [{}]", b.tensor(2).name, dims_str(b.tensor(2).dims), O);
  }
  const int64_t kh = wd[2], kw = wd[3];
  const bool gemm = groups == 1 && !transposed;
  // Transposed with kernel == stride, no padding, dilation 1 (or a 1-wide kernel), no output_padding: each output
  // pixel has one tap, so the phase kernel (one invocation per input pixel and block of OB <= 16 / (kh*kw)
  // output channels) applies; else the gather kernel.
  const bool phase = transposed && kh == sh && kw == sw && ph == 0 && pw == 0 && (dh == 1 || kh == 1) &&
                     (dw == 1 || kw == 1) && oph == 0 && opw == 0 && kh * kw <= 16;
  const int64_t phase_ob = phase ? std::min<int64_t>(16 / (kh * kw), O / groups) : 1;
  UniformRef u = b.uniform<ConvParams>();
  const Binding xb = Binding::tensor(b.arg(0)), wb = Binding::tensor(b.arg(1)), ob = Binding::tensor(b.arg(oi));
  const Binding biasb = has_bias ? Binding::tensor(b.arg(2)) : xb;
  // groups == 1: the shared GEMM (the device's kernel choice) with an implicit-im2col B loader; else direct.
  const GemmConfig cfg = gemm_config(b.device());
  // The geometry as override constants of every route (conv_geometry.wgsl); the uniform carries it too.
  const std::vector<std::pair<std::string, double>> geometry = {
      {"CONV_KH", double(kh)}, {"CONV_KW", double(kw)}, {"CONV_SH", double(sh)}, {"CONV_SW", double(sw)},
      {"CONV_PH", double(ph)}, {"CONV_PW", double(pw)}, {"CONV_DH", double(dh)}, {"CONV_DW", double(dw)}};
  UniformRef gu{};
  DispatchRef d;
  if (gemm) {
    gu = b.uniform<GemmParams>();
    webgpu::KernelSpec spec = gemm_variant(cfg, "ops/conv/conv_gemm.wgsl", "ops/conv/conv_gemm_cpu.wgsl");
    spec.constants.insert(spec.constants.end(), epi.begin(), epi.end());
    spec.constants.insert(spec.constants.end(), geometry.begin(), geometry.end());
    d = b.dispatch(spec, {wb, xb, xb, biasb, ob, gu, u});
  } else {
    webgpu::KernelSpec spec{phase ? "ops/conv/conv_transpose_phase.wgsl" : transposed ? "ops/conv/conv_transpose.wgsl" : "ops/conv/conv_direct.wgsl", "main", epi, {}};
    spec.constants.insert(spec.constants.end(), geometry.begin(), geometry.end());
    if (phase) spec.constants.emplace_back("OB", double(phase_ob));
    d = b.dispatch(spec, {xb, wb, biasb, ob, u});
  }
  // Init-captures: clang < 16 (Emscripten 3.1.6, the browser build) cannot capture structured bindings.
  b.on_resize([=, sh = sh, sw = sw, ph = ph, pw = pw, dh = dh, dw = dw, oph = oph, opw = opw, oi = oi](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (x.size() != 4 || x[1] != C) r.fail("x '{}' has live dims {}; must be [N, {}, H, W]", r.tensor(0).name, dims_str(x), C);
    const int64_t OH = transposed ? (x[2] - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1 : (x[2] + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    const int64_t OW = transposed ? (x[3] - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1 : (x[3] + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    if ((!transposed && (x[2] + 2 * ph - dh * (kh - 1) - 1 < 0 || x[3] + 2 * pw - dw * (kw - 1) - 1 < 0)) || OH <= 0 || OW <= 0)
      r.fail("x {} with kernel [{}, {}], padding [{}, {}], dilation [{}, {}] gives an empty output", dims_str(x), kh, kw,
             ph, pw, dh, dw);
    const Dims od = {x[0], O, OH, OW};
    if (numel(x) >= (int64_t(1) << 32) || numel(od) >= (int64_t(1) << 32))
      r.fail("x {} / out {}: too many elements for 32-bit indexing", dims_str(x), dims_str(od));
    r.set_dims(oi, od);
    ConvParams p{};
    p.N = uint32_t(x[0]);
    p.C = uint32_t(C);
    p.H = uint32_t(x[2]);
    p.W = uint32_t(x[3]);
    p.O = uint32_t(O);
    p.OH = uint32_t(OH);
    p.OW = uint32_t(OW);
    p.groups = uint32_t(groups);
    p.kh = uint32_t(kh);
    p.kw = uint32_t(kw);
    p.sh = uint32_t(sh);
    p.sw = uint32_t(sw);
    p.ph = uint32_t(ph);
    p.pw = uint32_t(pw);
    p.dh = uint32_t(dh);
    p.dw = uint32_t(dw);
    p.cpg = uint32_t(C / groups);
    p.opg = uint32_t(O / groups);
    p.K = uint32_t(C / groups * kh * kw);  // transposed: unused
    p.has_bias = has_bias;
    r.set_uniform(u, p);
    if (gemm) {
      // out[z] (O x OH*OW) = W (O x K) * im2col(x[z]) (K x OH*OW) + bias (per row), z = image.
      GemmParams g = contiguous_gemm(p.O, p.OH * p.OW, p.K, p.N);
      g.a_sb = 0;  // one weight for every image
      g.b_sb = p.C * p.H * p.W;
      g.has_bias = has_bias;
      g.bias_sm = 1;
      g.bias_sn = 0;
      r.set_uniform(gu, g);
      try {
        r.set_grid(d, gemm_grid(cfg, g, r.max_workgroups_per_dim()));
      } catch (const InvalidArgument& e) {
        r.fail("{}", e.what());
      }
    } else {
      // phase: one invocation per input pixel and block of output channels; else one per output.
      p.total = phase ? uint32_t(x[0] * groups * ((O / groups + phase_ob - 1) / phase_ob) * x[2] * x[3]) : uint32_t(numel(od));
      r.set_uniform(u, p);
      r.set_invocations(d, p.total);
    }
  });
}

}  // namespace

void register_conv_ops(OpRegistry& r) {
  const std::vector<std::string> kernels = {"ops/conv/conv_gemm.wgsl:main", "ops/conv/conv_gemm_cpu.wgsl:main",
                                            "ops/conv/conv_direct.wgsl:main", "ops/conv/conv_transpose.wgsl:main",
                                            "ops/conv/conv_transpose_phase.wgsl:main"};
  r.add({"aten.convolution.default", [](OpBuilder& b) { build_conv(b, false); }, kernels, true});
  r.add({"wgrt.convolution_epilogue.default", [](OpBuilder& b) { build_conv(b, true); }, kernels, true});
}

}  // namespace wgrt::ops
