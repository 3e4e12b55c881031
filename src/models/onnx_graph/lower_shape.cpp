// ONNX shape and data-movement operators: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
// Concat, Slice, Gather, Expand, Split, Pad (constant), Tile (host), ConstantOfShape, Range.
// On host-known inputs they fold on the host; on device tensors they become view/permute/slice/select/cat
// copies (aten.*_copy) and constant_pad_nd.
#include <cmath>

#include "models/onnx_graph/host_eval.h"
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

namespace {

// Sets output 0 to x reshaped to dims: a host reshape or a device view.
void reshaped(Lowering& l, const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > (int64_t(1) << 40) / d)) l.fail("cannot reshape {} to {}", dims_str(l.dims(0)), dims_str(dims));
    n *= d;
  }
  if (n != numel(l.dims(0))) l.fail("cannot reshape {} to {}", dims_str(l.dims(0)), dims_str(dims));
  if (l.is_host(0)) {
    HostTensor h = l.host(0);
    h.dims = dims;
    l.set_host(0, h);
  } else {
    l.set_gpu(0, l.view(l.gpu(0), dims), dims);
  }
}

std::vector<int64_t> axes_input_or_attr(Lowering& l, int64_t since_input, size_t input) {
  if (l.opset() >= since_input) return l.has(input) ? l.host(input).ints() : std::vector<int64_t>{};
  return l.attr_ints("axes");
}

void lower_shape(Lowering& l) {
  l.known_attrs({"start", "end"});
  const Dims& d = l.dims(0);
  const int64_t r = int64_t(d.size());
  int64_t s = l.attr_int("start", 0), e = l.attr_int("end", r);
  if (s < 0) s += r;
  if (e < 0) e += r;
  s = std::clamp<int64_t>(s, 0, r);
  e = std::clamp<int64_t>(e, s, r);
  l.set_host(0, host_ints(ElemType::Int64, {e - s}, std::vector<int64_t>(d.begin() + s, d.begin() + e)));
}

void lower_size(Lowering& l) { l.set_host(0, host_ints(ElemType::Int64, {}, {numel(l.dims(0))})); }

void lower_reshape(Lowering& l) {
  l.known_attrs({"allowzero"});
  const bool allowzero = l.attr_int("allowzero", 0) != 0;
  std::vector<int64_t> shape = l.host(1).ints();
  const Dims& in = l.dims(0);
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0 && !allowzero) {
      if (k >= in.size()) l.fail("shape {} copies dim {} of a rank-{} input", dims_str(shape), k, in.size());
      shape[k] = in[k];
    }
    if (shape[k] == -1) {
      if (infer >= 0) l.fail("shape {} has more than one -1", dims_str(shape));
      infer = int64_t(k);
    } else if (shape[k] < 0) {
      l.fail("shape {} has a negative dim", dims_str(shape));
    } else {
      if (shape[k] > 0 && known > (int64_t(1) << 40) / shape[k]) l.fail("shape {} is too large", dims_str(shape));
      known *= shape[k];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel(in) % known) l.fail("cannot reshape {} to {}", dims_str(in), dims_str(shape));
    shape[size_t(infer)] = numel(in) / known;
  }
  reshaped(l, shape);
}

void lower_flatten(Lowering& l) {
  l.known_attrs({"axis"});
  const Dims& in = l.dims(0);
  const int64_t a = l.attr_int("axis", 1);
  const int64_t ax = a < 0 ? a + int64_t(in.size()) : a;
  if (ax < 0 || ax > int64_t(in.size())) l.fail("axis {} is out of range for rank {}", a, in.size());
  reshaped(l, {numel(Dims(in.begin(), in.begin() + ax)), numel(Dims(in.begin() + ax, in.end()))});
}

void lower_squeeze(Lowering& l) {
  l.known_attrs({"axes"});
  const Dims& in = l.dims(0);
  std::vector<int64_t> axes = axes_input_or_attr(l, 13, 1);
  std::vector<bool> drop(in.size(), false);
  if (axes.empty())
    for (size_t k = 0; k < in.size(); ++k) drop[k] = in[k] == 1;
  for (int64_t a : axes) {
    const int64_t ax = l.axis(a, in.size());
    if (in[size_t(ax)] != 1) l.fail("cannot squeeze axis {} of size {}", a, in[size_t(ax)]);
    drop[size_t(ax)] = true;
  }
  Dims out;
  for (size_t k = 0; k < in.size(); ++k)
    if (!drop[k]) out.push_back(in[k]);
  reshaped(l, out);
}

void lower_unsqueeze(Lowering& l) {
  l.known_attrs({"axes"});
  const Dims& in = l.dims(0);
  std::vector<int64_t> axes = axes_input_or_attr(l, 13, 1);
  const size_t r = in.size() + axes.size();
  std::vector<bool> added(r, false);
  for (int64_t a : axes) {
    const int64_t ax = l.axis(a, r);
    if (added[size_t(ax)]) l.fail("axis {} appears twice", a);
    added[size_t(ax)] = true;
  }
  Dims out;
  size_t j = 0;
  for (size_t k = 0; k < r; ++k) out.push_back(added[k] ? 1 : in[j++]);
  reshaped(l, out);
}

void lower_transpose(Lowering& l) {
  l.known_attrs({"perm"});
  const size_t r = l.rank(0);
  std::vector<int64_t> perm = l.attr_ints("perm");
  if (perm.empty())
    for (size_t k = 0; k < r; ++k) perm.push_back(int64_t(r - 1 - k));
  if (perm.size() != r) l.fail("perm has {} entries for a rank-{} input", perm.size(), r);
  std::vector<bool> seen(r, false);
  for (int64_t& p : perm) {
    p = l.axis(p, r, "perm entry");
    if (seen[size_t(p)]) l.fail("perm repeats axis {}", p);
    seen[size_t(p)] = true;
  }
  if (l.is_host(0)) {
    l.set_host(0, host_permute(l.host(0), perm));
    return;
  }
  Dims od;
  for (int64_t p : perm) od.push_back(l.dims(0)[size_t(p)]);
  if (r == 0) {
    l.alias_output(0, 0);
    return;
  }
  l.set_gpu(0, l.permute(l.gpu(0), l.dims(0), perm), od);
}

void lower_concat(Lowering& l) {
  l.known_attrs({"axis"});
  const size_t r = l.rank(0);
  const int64_t ax = l.axis(l.attr_int("axis", 0), r);
  Dims od = l.dims(0);
  od[size_t(ax)] = 0;
  for (size_t i = 0; i < l.num_inputs(); ++i) {
    const Dims& d = l.dims(i);
    bool ok = d.size() == r;
    for (size_t k = 0; ok && k < r; ++k) ok = int64_t(k) == ax || d[k] == l.dims(0)[k];
    if (!ok) l.fail("input {} has dims {}, which do not match {} outside axis {}", i, dims_str(d), dims_str(l.dims(0)), ax);
    od[size_t(ax)] += d[size_t(ax)];
  }
  if (l.all_host()) {
    std::vector<const HostTensor*> parts;
    for (size_t i = 0; i < l.num_inputs(); ++i) parts.push_back(&l.host(i));
    l.set_host(0, host_concat(parts, ax));
    return;
  }
  std::vector<ValueId> ids;
  for (size_t i = 0; i < l.num_inputs(); ++i)
    if (numel(l.dims(i)) > 0) ids.push_back(l.gpu(i));
  l.set_gpu(0, l.emit("aten.cat.default", {l.g.value_list(ids), l.g.int_value(ax)}, od), od);
}

// Resolves one axis of a Slice (numpy semantics): returns {start, step, size}.
struct SliceDim {
  int64_t start, step, size;
};
SliceDim slice_dim(int64_t dim, int64_t s, int64_t e, int64_t step) {
  // Clamp first (starts/ends may be +-INT64_MAX), then count without overflow.
  auto norm = [dim](int64_t v) { return v < 0 ? (v < -dim ? -dim - 1 : v) + dim : v; };
  s = norm(s);
  e = norm(e);
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    return {s, step, e > s ? (e - s - 1) / step + 1 : 0};
  }
  s = std::clamp<int64_t>(s, -1, dim - 1);
  e = std::clamp<int64_t>(e, -1, dim - 1);
  const int64_t neg = step == INT64_MIN ? INT64_MAX : -step;
  return {s, step, s > e ? (s - e - 1) / neg + 1 : 0};
}

void lower_slice(Lowering& l) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (l.opset() < 10) {
    l.known_attrs({"starts", "ends", "axes"});
    starts = l.attr_ints("starts");
    ends = l.attr_ints("ends");
    axes = l.attr_ints("axes");
  } else {
    l.known_attrs({});
    starts = l.host(1).ints();
    ends = l.host(2).ints();
    if (l.has(3)) axes = l.host(3).ints();
    if (l.has(4)) steps = l.host(4).ints();
  }
  const Dims& in = l.dims(0);
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    l.fail("starts, ends, axes and steps must have the same length");
  Dims st(in.size(), 0), sp(in.size(), 1), od = in;
  std::vector<bool> seen(in.size(), false);
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t ax = l.axis(axes[k], in.size());
    if (seen[size_t(ax)]) l.fail("axis {} appears twice", axes[k]);
    seen[size_t(ax)] = true;
    if (steps[k] == 0) l.fail("step must not be 0");
    SliceDim s = slice_dim(in[size_t(ax)], starts[k], ends[k], steps[k]);
    st[size_t(ax)] = s.start;
    sp[size_t(ax)] = s.step;
    od[size_t(ax)] = s.size;
  }
  if (l.is_host(0)) {
    l.set_host(0, host_slice(l.host(0), st, sp, od));
    return;
  }
  ValueId x = l.gpu(0);
  for (size_t ax = 0; ax < in.size(); ++ax) {
    if (st[ax] == 0 && sp[ax] == 1 && od[ax] == in[ax]) continue;
    if (sp[ax] < 0) l.unsupported("negative steps on a device tensor are not supported");
    Dims d = l.g.tensor_at(x).max_dims;
    d[ax] = od[ax];
    x = l.emit("aten.slice_copy.Tensor",
               {x, l.g.int_value(int64_t(ax)), l.g.int_value(st[ax]), l.g.int_value(st[ax] + (od[ax] - 1) * sp[ax] + 1), l.g.int_value(sp[ax])},
               d, "slice");
  }
  if (x == l.gpu(0)) {
    l.alias_output(0, 0);
    return;
  }
  l.set_gpu(0, x, od);
}

void lower_gather(Lowering& l) {
  l.known_attrs({"axis"});
  const Dims& in = l.dims(0);
  const int64_t ax = l.axis(l.attr_int("axis", 0), in.size());
  HostTensor idx = l.host(1);
  if (idx.is_float()) l.fail("indices must be integers");
  idx.i = idx.ints();
  for (int64_t& v : idx.i) {
    if (v < -in[size_t(ax)] || v >= in[size_t(ax)]) l.fail("index {} is out of range for axis {} of size {}", v, ax, in[size_t(ax)]);
    if (v < 0) v += in[size_t(ax)];
  }
  if (l.is_host(0)) {
    l.set_host(0, host_gather(l.host(0), idx, ax));
    return;
  }
  Dims od(in.begin(), in.begin() + ax);
  od.insert(od.end(), idx.dims.begin(), idx.dims.end());
  od.insert(od.end(), in.begin() + ax + 1, in.end());
  ValueId x = l.gpu(0);
  if (idx.numel() > 256) l.unsupported("Gather of {} indices on a device tensor is not supported (at most 256)", idx.numel());
  std::vector<ValueId> parts;
  Dims one = in;
  one[size_t(ax)] = 1;
  for (int64_t v : idx.i)
    parts.push_back(l.emit("aten.slice_copy.Tensor", {x, l.g.int_value(ax), l.g.int_value(v), l.g.int_value(v + 1), l.g.int_value(1)}, one, "take"));
  Dims cat = in;
  cat[size_t(ax)] = idx.numel();
  ValueId y = parts.size() == 1 ? parts[0] : l.emit("aten.cat.default", {l.g.value_list(parts), l.g.int_value(ax)}, cat);
  l.set_gpu(0, l.view(y, od), od);
}

void lower_expand(Lowering& l) {
  l.known_attrs({});
  auto shape = broadcast_dims(l.dims(0), l.host(1).ints());
  if (!shape) l.fail("cannot expand {} to {}", dims_str(l.dims(0)), dims_str(l.host(1).ints()));
  if (l.is_host(0)) {
    l.set_host(0, host_expand(l.host(0), *shape));
    return;
  }
  if (*shape == l.dims(0)) {
    l.alias_output(0, 0);
    return;
  }
  // x + zeros(shape): the broadcasting add materialises the expansion.
  ValueId z = l.constant_f32(l.label("zeros"), *shape, std::vector<float>(size_t(numel(*shape)), 0.0f));
  l.set_gpu(0, l.emit("aten.add.Tensor", {l.gpu(0), z, l.g.real(1.0)}, *shape), *shape);
}

void lower_split(Lowering& l) {
  l.known_attrs({"axis", "split", "num_outputs"});
  const Dims& in = l.dims(0);
  const int64_t ax = l.axis(l.attr_int("axis", 0), in.size());
  std::vector<int64_t> sizes = l.opset() >= 13 ? (l.has(1) ? l.host(1).ints() : std::vector<int64_t>{}) : l.attr_ints("split");
  const int64_t n = int64_t(l.num_outputs());
  if (l.has_attr("num_outputs")) {  // opset 18: no split input, chunks of ceil(dim / n), the last one smaller
    if (!sizes.empty()) l.fail("split and num_outputs are both given");
    if (l.attr_int("num_outputs", 0) != n) l.fail("num_outputs = {} but the node has {} outputs", l.attr_int("num_outputs", 0), n);
  }
  if (sizes.empty()) {
    const int64_t dim = in[size_t(ax)], each = (dim + n - 1) / n;
    for (int64_t k = 0; k < n; ++k) sizes.push_back(std::min(each, dim - k * each));
  }
  if (int64_t(sizes.size()) != n) l.fail("split has {} sizes for {} outputs", sizes.size(), n);
  int64_t at = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Dims st(in.size(), 0), sp(in.size(), 1), od = in;
    st[size_t(ax)] = at;
    od[size_t(ax)] = sizes[k];
    if (sizes[k] < 0 || sizes[k] > in[size_t(ax)] - at) l.fail("split sizes {} do not fit axis size {}", dims_str(sizes), in[size_t(ax)]);
    if (l.is_host(0)) {
      l.set_host(k, host_slice(l.host(0), st, sp, od));
    } else {
      ValueId y = l.emit("aten.slice_copy.Tensor",
                         {l.gpu(0), l.g.int_value(ax), l.g.int_value(at), l.g.int_value(at + sizes[k]), l.g.int_value(1)}, od, "split");
      l.set_gpu(k, y, od);
    }
    at += sizes[k];
  }
  if (at != in[size_t(ax)]) l.fail("split sizes {} do not sum to axis size {}", dims_str(sizes), in[size_t(ax)]);
}

void lower_pad(Lowering& l) {
  l.known_attrs({"mode", "pads", "value"});
  const std::string mode = l.attr_str("mode", "constant");
  if (mode != "constant") l.unsupported("mode '{}' is not supported (constant only)", mode);
  std::vector<int64_t> pads;
  double value = 0;
  if (l.opset() < 11) {
    pads = l.attr_ints("pads");
    value = l.attr_float("value", 0);
  } else {
    pads = l.host(1).ints();
    if (l.has(2) && l.host(2).numel() > 0) value = l.host(2).at(0);
  }
  const Dims& in = l.dims(0);
  const size_t r = in.size();
  if (l.opset() >= 18 && l.has(3)) {  // axes: pads name only these dims (begins, then ends)
    const std::vector<int64_t> axes = l.host(3).ints();
    if (pads.size() != 2 * axes.size()) l.fail("pads has {} values for {} axes", pads.size(), axes.size());
    std::vector<int64_t> full(2 * r, 0);
    std::vector<bool> seen(r, false);
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t a = size_t(l.axis(axes[k], r, "axes entry"));
      if (seen[a]) l.fail("axes repeats axis {}", axes[k]);
      seen[a] = true;
      full[a] = pads[k];
      full[a + r] = pads[k + axes.size()];
    }
    pads = full;
  } else if (l.has(3)) {
    l.unsupported("the axes input is not supported before opset 18");
  }
  if (pads.size() != 2 * r) l.fail("pads has {} values for rank {}", pads.size(), r);
  for (int64_t p : pads) l.bounded(p, -(int64_t(1) << 24), "pad");
  Dims od = in;
  std::vector<int64_t> tp;  // torch order: last dim first, (lo, hi) pairs
  for (size_t k = 0; k < r; ++k) od[k] += pads[k] + pads[k + r];
  for (size_t k = r; k-- > 0;) tp.insert(tp.end(), {pads[k], pads[k + r]});
  if (l.is_host(0) || l.in(0).type != ElemType::Float) l.unsupported("Pad of a constant is not supported");
  l.set_gpu(0, l.emit("aten.constant_pad_nd.default", {l.gpu(0), l.g.int_list(tp), l.g.real(value)}, od), od);
}

void lower_constant_of_shape(Lowering& l) {
  l.known_attrs({"value"});
  const Dims dims = l.host(0).ints();
  host_numel(dims);
  HostTensor v = host_floats(ElemType::Float, {1}, {0.0});
  if (l.has_attr("value")) v = host_from(*l.node->attrs.at("value").t);
  if (v.numel() != 1) l.fail("value must hold one element");
  HostTensor out = host_expand(v, dims);
  out.dims = dims;
  l.set_host(0, out);
}

void lower_range(Lowering& l) {
  l.known_attrs({});
  const HostTensor &s = l.host(0), &e = l.host(1), &d = l.host(2);
  if (s.numel() != 1 || e.numel() != 1 || d.numel() != 1) l.fail("start, limit and delta must be scalars");
  const double start = s.at(0), limit = e.at(0), delta = d.at(0);
  if (delta == 0) l.fail("delta must not be 0");
  const double count = std::ceil((limit - start) / delta);
  if (!std::isfinite(count) || count > double(kMaxHostElems)) l.unsupported("a range of {} elements is not supported", count);
  const int64_t n = std::max<int64_t>(int64_t(count), 0);
  HostTensor out;
  out.type = s.type;
  out.dims = {n};
  for (int64_t k = 0; k < n; ++k) {
    if (s.is_float()) out.f.push_back(start + double(k) * delta);
    else out.i.push_back(s.i[0] + k * d.i[0]);
  }
  l.set_host(0, out.cast(s.type));
}

void lower_tile(Lowering& l) {
  l.known_attrs({});
  const HostTensor& x = l.host(0);
  const std::vector<int64_t> reps = l.host(1).ints();
  if (reps.size() != x.dims.size()) l.fail("repeats has {} values for rank {}", reps.size(), x.dims.size());
  HostTensor cur = x;
  for (size_t ax = 0; ax < reps.size(); ++ax) {
    if (reps[ax] > (int64_t(1) << 16)) l.unsupported("repeats of {} are not supported", reps[ax]);
    std::vector<const HostTensor*> parts(size_t(std::max<int64_t>(reps[ax], 0)), &cur);
    if (parts.empty()) l.unsupported("zero repeats are not supported");
    cur = host_concat(parts, int64_t(ax));
  }
  l.set_host(0, cur);
}

}  // namespace

std::vector<OpRule> shape_rules() {
  return {{"Shape", 1, lower_shape},     {"Size", 1, lower_size},         {"Reshape", 5, lower_reshape},
          {"Flatten", 1, lower_flatten}, {"Squeeze", 1, lower_squeeze},   {"Unsqueeze", 1, lower_unsqueeze},
          {"Transpose", 1, lower_transpose}, {"Concat", 4, lower_concat}, {"Slice", 1, lower_slice},
          {"Gather", 1, lower_gather},   {"Expand", 8, lower_expand},     {"Split", 2, lower_split},
          {"Pad", 2, lower_pad},         {"ConstantOfShape", 9, lower_constant_of_shape},
          {"Range", 11, lower_range},    {"Tile", 6, lower_tile}};
}

}  // namespace wgrt::onnx
