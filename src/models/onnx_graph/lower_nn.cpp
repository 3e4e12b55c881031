// ONNX neural-network operators: Conv, ConvTranspose (1-D and 2-D), BatchNormalization, InstanceNormalization,
// LayerNormalization, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, Softmax, LogSoftmax.
// (MatMul, Gemm: lower_matmul.cpp; Resize, Upsample: lower_resize.cpp.)
// 1-D inputs [N, C, L] run as 2-D [N, C, 1, L]. Padding: auto_pad (NOTSET, SAME_UPPER, SAME_LOWER, VALID)
// resolved to explicit pads; asymmetric pads are applied by a constant_pad_nd before the op (zero for Conv
// and AveragePool with count_include_pad, -inf for MaxPool).
#include <cmath>
#include <limits>

#include "models/onnx_graph/lowering.h"
#include "models/onnx_graph/nn_common.h"

namespace wgrt::onnx {

Pads2d resolve_pads(Lowering& l, const Dims& x4, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                    const std::vector<int64_t>& d, bool transposed) {
  const std::string ap = l.attr_str("auto_pad", "NOTSET");
  const size_t sp = k.size();
  std::vector<int64_t> pads = l.attr_ints("pads", std::vector<int64_t>(2 * sp, 0));
  if (pads.size() != 2 * sp) l.fail("pads has {} values for {} spatial dims", pads.size(), sp);
  if (ap == "VALID") pads.assign(2 * sp, 0);
  else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    if (transposed) l.unsupported("auto_pad {} for ConvTranspose is not supported", ap);
    for (size_t i = 0; i < sp; ++i) {
      const int64_t in = x4[x4.size() - sp + i];
      const int64_t out = (in + s[i] - 1) / s[i];
      const int64_t total = std::max<int64_t>((out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in, 0);
      const int64_t small = total / 2, big = total - small;
      pads[i] = ap == "SAME_UPPER" ? small : big;
      pads[i + sp] = ap == "SAME_UPPER" ? big : small;
    }
  } else if (ap != "NOTSET") {
    l.unsupported("auto_pad '{}' is not supported", ap);
  }
  for (int64_t p : pads) l.bounded(p, 0, "pad");
  Pads2d r;
  if (sp == 1) r = {0, pads[0], 0, pads[1]};
  else r = {pads[0], pads[1], pads[2], pads[3]};
  return r;
}

Spatial spatial(Lowering& l, size_t xi) {
  Spatial s;
  const Dims& d = l.dims(xi);
  if (d.size() != 3 && d.size() != 4) l.unsupported("input of rank {} is not supported (1-D and 2-D spatial only)", d.size());
  s.one_d = d.size() == 3;
  s.x = l.gpu(xi);
  s.d4 = s.one_d ? Dims{d[0], d[1], 1, d[2]} : d;
  if (s.one_d) s.x = l.view(s.x, s.d4);
  return s;
}

std::vector<int64_t> pair_of(const Lowering& l, const std::vector<int64_t>& v, bool one_d, int64_t fill, int64_t lo, const char* what) {
  if (!v.empty() && v.size() != (one_d ? 1u : 2u)) l.fail("{} has {} values for {} spatial dims", what, v.size(), one_d ? 1 : 2);
  std::vector<int64_t> out = one_d ? std::vector<int64_t>{fill, v.empty() ? fill : v[0]} : v.empty() ? std::vector<int64_t>{fill, fill} : v;
  for (int64_t x : out) l.bounded(x, lo, what);
  return out;
}

ValueId pad_asym(Lowering& l, ValueId x, Dims& d4, Pads2d& p, double value, bool force) {
  if (!force && p.t == p.b && p.l == p.r) return x;
  Dims od = d4;
  od[2] += p.t + p.b;
  od[3] += p.l + p.r;
  ValueId y = l.emit("aten.constant_pad_nd.default", {x, l.g.int_list({p.l, p.r, p.t, p.b}), l.g.real(value)}, od, "pad");
  d4 = od;
  p = {0, 0, 0, 0};
  return y;
}

void finish_spatial(Lowering& l, const Spatial& s, ValueId y, Dims d4) {
  if (s.one_d) {
    Dims d3 = {d4[0], d4[1], d4[3]};
    l.set_gpu(0, l.view(y, d3), d3);
  } else {
    l.set_gpu(0, y, d4);
  }
}

namespace {

void lower_conv(Lowering& l) {
  const bool tr = l.node->op_type == "ConvTranspose";
  if (tr) l.known_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", "output_padding", "output_shape"});
  else l.known_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  Spatial s = spatial(l, 0);
  const Dims& wd = l.dims(1);
  if (wd.size() != l.rank(0)) l.fail("weight {} must have the rank of x {}", dims_str(wd), dims_str(l.dims(0)));
  ValueId w = l.gpu(1);
  Dims w4 = s.one_d ? Dims{wd[0], wd[1], 1, wd[2]} : wd;
  if (s.one_d) w = l.view(w, w4);
  const int64_t group = l.attr_int("group", 1);
  auto k = pair_of(l, l.attr_ints("kernel_shape"), s.one_d, 1, 1, "kernel_shape");
  if (l.has_attr("kernel_shape") && (k[0] != w4[2] || k[1] != w4[3])) l.fail("kernel_shape disagrees with the weight {}", dims_str(wd));
  k = {w4[2], w4[3]};
  auto st = pair_of(l, l.attr_ints("strides"), s.one_d, 1, 1, "strides");
  auto dl = pair_of(l, l.attr_ints("dilations"), s.one_d, 1, 1, "dilations");
  std::vector<int64_t> ksp = s.one_d ? std::vector<int64_t>{k[1]} : k;
  std::vector<int64_t> ssp = s.one_d ? std::vector<int64_t>{st[1]} : st;
  std::vector<int64_t> dsp = s.one_d ? std::vector<int64_t>{dl[1]} : dl;
  Pads2d p = resolve_pads(l, l.dims(0), ksp, ssp, dsp, tr);
  ValueId bias = l.has(2) ? l.gpu(2) : l.g.none();
  if (!tr) {
    ValueId x = pad_asym(l, s.x, s.d4, p, 0.0);
    const int64_t OH = (s.d4[2] + 2 * p.t - dl[0] * (k[0] - 1) - 1) / st[0] + 1;
    const int64_t OW = (s.d4[3] + 2 * p.l - dl[1] * (k[1] - 1) - 1) / st[1] + 1;
    if (OH <= 0 || OW <= 0) l.fail("the output of x {} with kernel {} is empty", dims_str(l.dims(0)), dims_str(k));
    const Dims od = {s.d4[0], w4[0], OH, OW};
    ValueId y = l.emit("aten.convolution.default",
                       {x, w, bias, l.g.int_list(st), l.g.int_list({p.t, p.l}), l.g.int_list(dl), l.g.boolean(false),
                        l.g.int_list({0, 0}), l.g.int_value(group)},
                       od);
    finish_spatial(l, s, y, od);
    return;
  }
  // ConvTranspose: full output (no padding), then crop the pads (asymmetric allowed) or fit output_shape.
  auto opad = pair_of(l, l.attr_ints("output_padding"), s.one_d, 0, 0, "output_padding");
  const int64_t FH = (s.d4[2] - 1) * st[0] + dl[0] * (k[0] - 1) + 1, FW = (s.d4[3] - 1) * st[1] + dl[1] * (k[1] - 1) + 1;
  int64_t OH = FH + opad[0] - p.t - p.b, OW = FW + opad[1] - p.l - p.r;
  if (l.has_attr("output_shape")) {
    auto os = pair_of(l, l.attr_ints("output_shape"), s.one_d, 1, 0, "output_shape");
    if (os.size() != 2) l.fail("output_shape must have one value per spatial dim");
    // ONNX: total padding = stride*(in-1) + output_padding + ((k-1)*d+1) - out; SAME_UPPER-style split unless auto_pad says lower.
    const bool lower = l.attr_str("auto_pad", "NOTSET") == "SAME_LOWER";
    auto split = [&](int64_t full, int64_t op, int64_t out, int64_t& a, int64_t& b) {
      const int64_t total = full + op - out;
      if (total < 0) l.unsupported("output_shape larger than the full output is not supported");
      a = lower ? total - total / 2 : total / 2;
      b = total - a;
    };
    split(FH, opad[0], os[0], p.t, p.b);
    split(FW, opad[1], os[1], p.l, p.r);
    OH = os[0];
    OW = os[1];
  }
  if (OH <= 0 || OW <= 0) l.fail("the output is empty");
  const int64_t O = w4[1] * group;
  // The full output plus output_padding rows/cols at the end (output_padding < stride, so the kernel's
  // output_padding argument produces them).
  const Dims full = {s.d4[0], O, FH + opad[0], FW + opad[1]};
  if (opad[0] >= std::max(st[0], dl[0]) || opad[1] >= std::max(st[1], dl[1])) l.fail("output_padding must be smaller than stride or dilation");
  ValueId y = l.emit("aten.convolution.default",
                     {s.x, w, bias, l.g.int_list(st), l.g.int_list({0, 0}), l.g.int_list(dl), l.g.boolean(true),
                      l.g.int_list(opad), l.g.int_value(group)},
                     full);
  Dims cur = full;
  auto crop = [&](int64_t dim, int64_t start, int64_t size) {
    if (start == 0 && size == cur[size_t(dim)]) return;
    cur[size_t(dim)] = size;
    y = l.emit("aten.slice_copy.Tensor", {y, l.g.int_value(dim), l.g.int_value(start), l.g.int_value(start + size), l.g.int_value(1)}, cur, "crop");
  };
  crop(2, p.t, OH);
  crop(3, p.l, OW);
  finish_spatial(l, s, y, cur);
}

void lower_batch_norm(Lowering& l) {
  l.known_attrs({"epsilon", "momentum", "spatial", "is_test"});
  if (l.attr_int("spatial", 1) != 1) l.unsupported("spatial = 0 is not supported");
  for (size_t o = 1; o < l.num_outputs(); ++o)
    if (l.wants(o)) l.unsupported("training-mode outputs (running mean/var) are not supported");
  const Dims& x = l.dims(0);
  if (x.size() < 2) l.fail("x must have rank >= 2");
  const float eps = l.attr_float("epsilon", 1e-5f);
  const Dims c = {x[1]};
  for (size_t i = 1; i <= 4; ++i)
    if (l.dims(i) != c) l.fail("input {} has dims {}; must be [{}]", i, dims_str(l.dims(i)), x[1]);
  ValueId y = l.emit("aten._native_batch_norm_legit_no_training.default",
                     {l.gpu(0), l.gpu(1), l.gpu(2), l.gpu(3), l.gpu(4), l.g.real(l.attr_float("momentum", 0.9f)), l.g.real(eps)}, x);
  l.set_gpu(0, y, x);
}

void lower_instance_norm(Lowering& l) {
  l.known_attrs({"epsilon"});
  const Dims& x = l.dims(0);
  if (x.size() < 3) l.fail("x must have rank >= 3");
  const int64_t hw = numel(Dims(x.begin() + 2, x.end()));
  ValueId y = l.emit("aten.native_group_norm.default",
                     {l.gpu(0), l.gpu(1), l.gpu(2), l.g.int_value(x[0]), l.g.int_value(x[1]), l.g.int_value(hw),
                      l.g.int_value(x[1]), l.g.real(l.attr_float("epsilon", 1e-5f))},
                     x);
  l.set_gpu(0, y, x);
}

void lower_layer_norm(Lowering& l) {
  l.known_attrs({"axis", "epsilon", "stash_type"});
  const Dims& x = l.dims(0);
  const int64_t ax = l.axis(l.attr_int("axis", -1), x.size());
  const Dims ns(x.begin() + ax, x.end());
  // Scale/bias must have the normalized shape (broadcast host values to it).
  auto param = [&](size_t i) -> ValueId {
    if (!l.has(i)) return l.g.none();
    if (l.dims(i) == ns) return l.gpu(i);
    if (!l.is_host(i)) l.unsupported("scale/bias of dims {} on the device must have the normalized shape {}", dims_str(l.dims(i)), dims_str(ns));
    HostTensor h = l.host(i);
    std::vector<float> v(size_t(numel(ns)));
    const int64_t n = h.numel();
    for (size_t k = 0; k < v.size(); ++k) v[k] = float(h.at(size_t(int64_t(k) % n)));
    return l.constant_f32(l.label(i == 1 ? "scale" : "bias"), ns, v);
  };
  const float eps = l.attr_float("epsilon", 1e-5f);
  ValueId xi = l.gpu(0);
  ValueId y = l.emit("aten.native_layer_norm.default", {xi, l.g.int_list(ns), param(1), param(2), l.g.real(eps)}, x);
  l.set_gpu(0, y, x);
  if (!l.wants(1) && !l.wants(2)) return;
  // Mean and InvStdDev (x's dims with the normalized dims 1): mean, then 1 / sqrt(mean((x - mean)^2) + eps).
  Dims sd = x;
  ValueId mean = xi;
  for (size_t k = size_t(ax); k < x.size(); ++k) {
    sd[k] = 1;
    mean = l.emit("wgrt.reduce_axis.default", {mean, l.g.int_value(int64_t(k)), l.g.string("mean")}, sd, "mean");
  }
  l.set_gpu(1, mean, sd);
  if (!l.wants(2)) return;
  ValueId d = l.emit("aten.sub.Tensor", {xi, mean, l.g.real(1.0)}, x, "centered");
  ValueId var = d;
  Dims vd = x;
  for (size_t k = size_t(ax); k < x.size(); ++k) {
    vd[k] = 1;
    var = l.emit("wgrt.reduce_axis.default", {var, l.g.int_value(int64_t(k)), l.g.string(k == size_t(ax) ? "sum_square" : "sum")}, vd, "var");
  }
  ValueId inv_n = l.constant_f32(l.label("1/n"), {}, {float(1.0 / double(numel(ns)))});
  var = l.emit("aten.mul.Tensor", {var, inv_n}, sd, "var");
  ValueId e = l.constant_f32(l.label("eps"), {}, {eps});
  var = l.emit("aten.add.Tensor", {var, e, l.g.real(1.0)}, sd, "var_eps");
  var = l.emit("aten.sqrt.default", {var}, sd, "std");
  l.set_gpu(2, l.emit("aten.reciprocal.default", {var}, sd, "inv_std"), sd);
}

void lower_pool(Lowering& l) {
  const std::string op = l.node->op_type;
  const bool global = op.rfind("Global", 0) == 0;
  const bool mx = op == "MaxPool" || op == "GlobalMaxPool";
  if (global) l.known_attrs({});
  else if (mx) l.known_attrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  else l.known_attrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  if (l.wants(1)) l.unsupported("the Indices output is not supported");
  if (global && l.rank(0) >= 3 && l.rank(0) <= 8) {
    // A reduction per spatial axis (last first): no window sized by the input, so it follows live dims.
    Dims cur = l.dims(0);
    ValueId v = l.gpu(0);
    for (size_t k = cur.size(); k-- > 2;) {
      cur[k] = 1;
      v = l.emit("wgrt.reduce_axis.default", {v, l.g.int_value(int64_t(k)), l.g.string(mx ? "max" : "mean")}, cur, "global");
    }
    l.set_gpu(0, v, cur);
    return;
  }
  Spatial s = spatial(l, 0);
  std::vector<int64_t> k = global ? std::vector<int64_t>{s.d4[2], s.d4[3]} : pair_of(l, l.attr_ints("kernel_shape"), s.one_d, 1, 1, "kernel_shape");
  auto st = global ? k : pair_of(l, l.attr_ints("strides"), s.one_d, 1, 1, "strides");
  auto dl = global ? std::vector<int64_t>{1, 1} : pair_of(l, l.attr_ints("dilations"), s.one_d, 1, 1, "dilations");
  if (!global && !l.has_attr("kernel_shape")) l.fail("kernel_shape is required");
  Pads2d p{};
  if (!global) {
    std::vector<int64_t> ksp = s.one_d ? std::vector<int64_t>{k[1]} : k;
    std::vector<int64_t> ssp = s.one_d ? std::vector<int64_t>{st[1]} : st;
    std::vector<int64_t> dsp = s.one_d ? std::vector<int64_t>{dl[1]} : dl;
    p = resolve_pads(l, l.dims(0), ksp, ssp, dsp, false);
  }
  const bool ceil_mode = l.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = l.attr_int("count_include_pad", 0) != 0;
  const bool asym = p.t != p.b || p.l != p.r;
  const bool too_big = 2 * p.t > (k[0] - 1) * dl[0] + 1 || 2 * p.l > (k[1] - 1) * dl[1] + 1;
  ValueId x = s.x;
  if (asym || too_big) {
    if (!mx && !include_pad) l.unsupported("asymmetric pads with count_include_pad = 0 are not supported");
    if (ceil_mode) l.unsupported("asymmetric pads with ceil_mode = 1 are not supported");
    x = pad_asym(l, x, s.d4, p, mx ? -std::numeric_limits<double>::infinity() : 0.0, true);
  }
  auto pooled = [&](int64_t in, int64_t kk, int64_t pad, int64_t ss, int64_t d) {
    const int64_t num = in + 2 * pad - d * (kk - 1) - 1 + (ceil_mode ? ss - 1 : 0);
    int64_t o = num / ss + 1;
    if (ceil_mode && (o - 1) * ss >= in + pad) --o;
    return o;
  };
  const int64_t OH = pooled(s.d4[2], k[0], p.t, st[0], dl[0]), OW = pooled(s.d4[3], k[1], p.l, st[1], dl[1]);
  if (OH <= 0 || OW <= 0) l.fail("the output is empty");
  const Dims od = {s.d4[0], s.d4[1], OH, OW};
  ValueId y;
  if (mx)
    y = l.emit("aten.max_pool2d_with_indices.default",
               {x, l.g.int_list(k), l.g.int_list(st), l.g.int_list({p.t, p.l}), l.g.int_list(dl), l.g.boolean(ceil_mode)}, od);
  else
    y = l.emit("aten.avg_pool2d.default",
               {x, l.g.int_list(k), l.g.int_list(st), l.g.int_list({p.t, p.l}), l.g.boolean(ceil_mode),
                l.g.boolean(include_pad || asym), l.g.none()},
               od);
  finish_spatial(l, s, y, od);
}

void lower_softmax(Lowering& l) {
  l.known_attrs({"axis"});
  const Dims& x = l.dims(0);
  const bool log = l.node->op_type == "LogSoftmax";
  const int64_t ax = l.axis(l.attr_int("axis", l.opset() >= 13 ? -1 : 1), x.size());
  ValueId v = l.gpu(0);
  Dims cur = x;
  std::vector<int64_t> perm;
  if (l.opset() < 13) {  // coerced to 2-D at axis
    cur = {numel(Dims(x.begin(), x.begin() + ax)), numel(Dims(x.begin() + ax, x.end()))};
    v = l.view(v, cur);
  } else if (ax != int64_t(x.size()) - 1) {
    for (size_t k = 0; k < x.size(); ++k) perm.push_back(int64_t(k));
    std::swap(perm[size_t(ax)], perm.back());
    v = l.permute(v, x, perm);
    std::swap(cur[size_t(ax)], cur.back());
  }
  v = l.emit("aten._softmax.default", {v, l.g.int_value(-1), l.g.boolean(false)}, cur);
  if (log) v = l.emit("aten.log.default", {v}, cur);
  if (!perm.empty()) v = l.permute(v, cur, perm);
  else if (cur != x) v = l.view(v, x);
  l.set_gpu(0, v, x);
}

}  // namespace

std::vector<OpRule> nn_rules() {
  return {{"Conv", 1, lower_conv},
          {"ConvTranspose", 1, lower_conv},
          {"BatchNormalization", 7, lower_batch_norm},
          {"InstanceNormalization", 6, lower_instance_norm},
          {"LayerNormalization", 17, lower_layer_norm},
          {"MaxPool", 8, lower_pool},
          {"AveragePool", 7, lower_pool},
          {"GlobalAveragePool", 1, lower_pool},
          {"GlobalMaxPool", 1, lower_pool},
          {"Softmax", 1, lower_softmax},
          {"LogSoftmax", 1, lower_softmax}};
}

}  // namespace wgrt::onnx
