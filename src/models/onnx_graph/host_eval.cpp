#include "models/onnx_graph/host_eval.h"

namespace wgrt::onnx {

namespace {

std::vector<int64_t> strides_of(const Dims& d) {
  std::vector<int64_t> s(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return s;
}

// Element strides of `in` read at the coordinates of `out` (broadcast dims: 0).
std::vector<int64_t> bstrides(const Dims& in, const Dims& out) {
  std::vector<int64_t> s(out.size(), 0);
  const auto st = strides_of(in);
  const size_t off = out.size() - in.size();
  for (size_t k = 0; k < in.size(); ++k) s[off + k] = in[k] == 1 ? 0 : st[k];
  return s;
}

// Calls f(out_index, in_offsets...) for every element of `out`.
template <typename F>
void each_index(const Dims& out, const std::vector<std::vector<int64_t>>& strides, F f) {
  const int64_t n = numel(out);
  std::vector<int64_t> c(out.size(), 0);
  std::vector<int64_t> offs(strides.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    std::fill(offs.begin(), offs.end(), 0);
    for (size_t k = 0; k < out.size(); ++k)
      for (size_t s = 0; s < strides.size(); ++s) offs[s] += c[k] * strides[s][k];
    f(i, offs);
    for (size_t k = out.size(); k-- > 0;) {
      if (++c[k] < out[k]) break;
      c[k] = 0;
    }
  }
}

HostTensor empty_like(ElemType t, const Dims& d) {
  host_numel(d);  // refuses negative dims and sizes past kMaxHostElems
  HostTensor h;
  h.type = t;
  h.dims = d;
  if (h.is_float()) h.f.resize(size_t(numel(d)));
  else h.i.resize(size_t(numel(d)));
  return h;
}

void copy_elem(HostTensor& dst, int64_t di, const HostTensor& src, int64_t si) {
  if (dst.is_float()) dst.f[size_t(di)] = src.at(size_t(si));
  else dst.i[size_t(di)] = src.int_at(size_t(si));
}

}  // namespace

std::optional<Dims> broadcast_dims(const Dims& a, const Dims& b) {
  const size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t k = 0; k < r; ++k) {
    const int64_t x = k + a.size() >= r ? a[k + a.size() - r] : 1;
    const int64_t y = k + b.size() >= r ? b[k + b.size() - r] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = x == 1 ? y : x;
  }
  return out;
}

HostTensor host_binary(const Lowering& l, const HostTensor& a, const HostTensor& b,
                       const std::function<double(double, double)>& f,
                       const std::function<int64_t(int64_t, int64_t)>& fi, bool logical) {
  auto shape = broadcast_dims(a.dims, b.dims);
  if (!shape) l.fail("shapes {} and {} do not broadcast", dims_str(a.dims), dims_str(b.dims));
  const bool use_float = (a.is_float() || b.is_float()) && f;
  if (!use_float && !fi) l.unsupported("element type {} is not supported", elem_name(a.type));
  HostTensor out = empty_like(logical ? ElemType::Bool : a.type, *shape);
  HostTensor wide = empty_like(use_float ? ElemType::Double : ElemType::Int64, *shape);
  each_index(*shape, {bstrides(a.dims, *shape), bstrides(b.dims, *shape)}, [&](int64_t i, const std::vector<int64_t>& o) {
    if (use_float) wide.f[size_t(i)] = f(a.at(size_t(o[0])), b.at(size_t(o[1])));
    else wide.i[size_t(i)] = fi(a.int_at(size_t(o[0])), b.int_at(size_t(o[1])));
  });
  return wide.cast(out.type);
}

HostTensor host_where(const Lowering& l, const HostTensor& c, const HostTensor& x, const HostTensor& y) {
  auto s1 = broadcast_dims(c.dims, x.dims);
  auto shape = s1 ? broadcast_dims(*s1, y.dims) : std::nullopt;
  if (!shape) l.fail("shapes {}, {} and {} do not broadcast", dims_str(c.dims), dims_str(x.dims), dims_str(y.dims));
  HostTensor out = empty_like(x.type, *shape);
  each_index(*shape, {bstrides(c.dims, *shape), bstrides(x.dims, *shape), bstrides(y.dims, *shape)},
           [&](int64_t i, const std::vector<int64_t>& o) {
             if (c.int_at(size_t(o[0]))) copy_elem(out, i, x, o[1]);
             else copy_elem(out, i, y, o[2]);
           });
  return out;
}

HostTensor host_expand(const HostTensor& x, const Dims& dims) {
  HostTensor out = empty_like(x.type, dims);
  each_index(dims, {bstrides(x.dims, dims)}, [&](int64_t i, const std::vector<int64_t>& o) { copy_elem(out, i, x, o[0]); });
  return out;
}

HostTensor host_permute(const HostTensor& x, const std::vector<int64_t>& perm) {
  Dims od;
  const auto st = strides_of(x.dims);
  std::vector<int64_t> s;
  for (int64_t p : perm) {
    od.push_back(x.dims[size_t(p)]);
    s.push_back(st[size_t(p)]);
  }
  HostTensor out = empty_like(x.type, od);
  each_index(od, {s}, [&](int64_t i, const std::vector<int64_t>& o) { copy_elem(out, i, x, o[0]); });
  return out;
}

HostTensor host_slice(const HostTensor& x, const Dims& starts, const Dims& steps, const Dims& out_dims) {
  HostTensor out = empty_like(x.type, out_dims);
  const auto st = strides_of(x.dims);
  int64_t base = 0;
  std::vector<int64_t> s(x.dims.size());
  for (size_t k = 0; k < x.dims.size(); ++k) {
    base += starts[k] * st[k];
    s[k] = steps[k] * st[k];
  }
  each_index(out_dims, {s}, [&](int64_t i, const std::vector<int64_t>& o) { copy_elem(out, i, x, base + o[0]); });
  return out;
}

HostTensor host_concat(const std::vector<const HostTensor*>& parts, int64_t axis) {
  Dims od = parts[0]->dims;
  od[size_t(axis)] = 0;
  for (const auto* p : parts) od[size_t(axis)] += p->dims[size_t(axis)];
  HostTensor out = empty_like(parts[0]->type, od);
  const auto ost = strides_of(od);
  int64_t at = 0;
  for (const auto* p : parts) {
    std::vector<int64_t> s = strides_of(p->dims);
    std::vector<int64_t> dst = ost;
    // iterate over p's elements, writing into out at offset `at` along axis
    each_index(p->dims, {s, dst}, [&](int64_t i, const std::vector<int64_t>& o) { copy_elem(out, o[1] + at * ost[size_t(axis)], *p, o[0]); });
    at += p->dims[size_t(axis)];
  }
  return out;
}

HostTensor host_gather(const HostTensor& x, const HostTensor& idx, int64_t axis) {
  Dims od(x.dims.begin(), x.dims.begin() + axis);
  od.insert(od.end(), idx.dims.begin(), idx.dims.end());
  od.insert(od.end(), x.dims.begin() + axis + 1, x.dims.end());
  HostTensor out = empty_like(x.type, od);
  const int64_t outer = numel(Dims(x.dims.begin(), x.dims.begin() + axis));
  const int64_t inner = numel(Dims(x.dims.begin() + axis + 1, x.dims.end()));
  const int64_t n = x.dims[size_t(axis)], ni = idx.numel();
  int64_t w = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < ni; ++j)
      for (int64_t e = 0; e < inner; ++e) copy_elem(out, w++, x, (o * n + idx.i[size_t(j)]) * inner + e);
  return out;
}

}  // namespace wgrt::onnx
