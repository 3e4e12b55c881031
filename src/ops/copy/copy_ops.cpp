// Copy ops (PyTorch semantics), all through one strided-copy kernel (copy/strided_copy.wgsl), rank <= 8,
// 32-bit dtypes (f32, i32, u32; copied bit-exactly). Every op has a resize hook (dynamic S).
//   aten.view_copy.default(x, size IntList | ValueList of Int/SymInt, out): one -1 allowed, inferred from the
//       live numel; SymInt sizes are read at every resize (sizes that follow live dims). The output
//       aliases the input buffer (no dispatch) whenever that is safe (OpBuilder::alias); else it is a copy.
//   aten.slice_copy.Tensor(x, dim, start (Int|SymInt|None), end (Int|SymInt|None), step Int > 0, out):
//       negative start/end count from the end; both clamped to [0, size] (end >= start) as torch.slice does.
//   aten.select_copy.int(x, dim, index (Int|SymInt, negative counts from the end), out): removes `dim`.
//   aten.permute_copy.default(x, dims IntList, out): out.dims[k] = x.dims[dims[k]] (negative dims allowed).
//   aten.cat.default(tensors ValueList, dim, out): concatenation along dim; legacy 1-D empty tensors
//       (shape [0]) are skipped as torch.cat does; one dispatch per input.
// Errors: InvalidArgument naming the node for bad dims/indices (at build, or at execute for live values);
// LimitError if a live output exceeds its max dims.
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/elementwise/broadcast.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct CopyParams {
  uint32_t n, rank, src_off, dst_off;
  uint32_t shape[8], src_strides[8], dst_strides[8];
};
WGRT_UNIFORM(CopyParams, n, rank, src_off, dst_off, shape, src_strides, dst_strides);

const char* kShader = "ops/copy/strided_copy.wgsl";

std::vector<int64_t> contiguous_strides(const Dims& d) {
  std::vector<int64_t> s(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return s;
}

struct CopyDispatch {
  UniformRef params;
  DispatchRef dispatch;
};

void check_32bit(OpBuilder& b, size_t i) {
  DType t = b.tensor(i).dtype;
  b.check(t == DType::F32 || t == DType::I32 || t == DType::U32, "tensor '{}' is {}: copy ops take 32-bit dtypes",
          b.tensor(i).name, dtype_name(t));
}

// A copy from tensor src_id into tensor dst_id (both node arguments or list members).
CopyDispatch declare_copy(OpBuilder& b, ValueId src_id, ValueId dst_id) {
  CopyDispatch c;
  c.params = b.uniform<CopyParams>();
  c.dispatch = b.dispatch({kShader, "main", {}, {}}, {Binding::tensor(src_id), Binding::tensor(dst_id), c.params});
  return c;
}

// Writes the params of a copy of `shape` with the given offsets and strides (coalesced first).
// Size-1 dims are dropped and adjacent dims that both sides step over alike merged (collapse_broadcast): e.g. one
// input of a cat along the channels of [1, C, H, W] is one run of C*H*W elements (fewer dims to unravel).
void set_copy(ResizeContext& r, const CopyDispatch& c, Dims shape, int64_t src_off, const std::vector<int64_t>& src_strides,
              int64_t dst_off, const std::vector<int64_t>& dst_strides) {
  std::vector<uint32_t> ss(src_strides.begin(), src_strides.end()), ds(dst_strides.begin(), dst_strides.end());
  if (numel(shape) > 0) collapse_broadcast(shape, ss, ds);
  if (shape.size() > 8) r.fail("rank {} exceeds 8", shape.size());
  CopyParams p{};
  p.n = uint32_t(numel(shape));
  p.rank = uint32_t(shape.size());
  p.src_off = uint32_t(src_off);
  p.dst_off = uint32_t(dst_off);
  for (size_t k = 0; k < shape.size(); ++k) {
    p.shape[k] = uint32_t(shape[k]);
    p.src_strides[k] = ss[k];
    p.dst_strides[k] = ds[k];
  }
  r.set_uniform(c.params, p);
  r.set_invocations(c.dispatch, p.n);
}

int64_t norm_dim(int64_t dim, int64_t rank, const auto& ctx) {
  int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank) ctx.fail("dim {} out of range for rank {}", dim, rank);
  return d;
}

void build_common(OpBuilder& b, size_t out) {
  check_32bit(b, 0);
  b.check_rank(0, 0, 8);
  b.check(b.tensor(0).dtype == b.tensor(out).dtype, "input '{}' is {} but output '{}' is {}", b.tensor(0).name,
          dtype_name(b.tensor(0).dtype), b.tensor(out).name, dtype_name(b.tensor(out).dtype));
}

// The size list of view_copy: its Int entries, and the ids of its entries when given as a ValueList.
struct ViewSize {
  IntList values;
  std::vector<ValueId> ids;
};

// Index of the one -1 entry (-1 if none); fails on a second -1 or a negative size.
template <typename Ctx>
int view_infer_index(const Ctx& c, const IntList& size) {
  int infer = -1;
  for (size_t k = 0; k < size.size(); ++k) {
    if (size[k] == -1) {
      if (infer >= 0) c.fail("only one -1 allowed in size");
      infer = int(k);
    } else if (size[k] < 0) {
      c.fail("negative size {} at dim {}", size[k], k);
    }
  }
  return infer;
}

void build_view(OpBuilder& b) {
  b.check_args(3);
  build_common(b, 2);
  ViewSize vs;
  if (std::holds_alternative<ValueList>(b.value(1))) {
    vs.ids = b.value_list(1);
    for (ValueId id : vs.ids) vs.values.push_back(b.int_by_id(id));
  } else {
    vs.values = b.int_list(1);
  }
  b.check(vs.values.size() <= 8, "size has {} dims (at most 8)", vs.values.size());
  view_infer_index(b, vs.values);
  // A contiguous view is free: the output shares the input's buffer when the max sizes allow it (the input
  // is an intermediate or input that nothing writes in place); otherwise it is a copy.
  const bool view = b.tensor(2).role == TensorRole::Intermediate && b.tensor(2).max_bytes() <= b.tensor(0).max_bytes() &&
                    b.tensor(0).role != TensorRole::State && b.tensor(2).dtype == b.tensor(0).dtype;
  CopyDispatch c{};
  if (view) b.alias(2, 0);
  else c = declare_copy(b, b.arg(0), b.arg(2));
  b.on_resize([=](ResizeContext& r) {
    const int64_t n = numel(r.tensor(0).dims);
    IntList size = vs.values;
    for (size_t k = 0; k < vs.ids.size(); ++k) size[k] = r.int_by_id(vs.ids[k]);
    const int infer = view_infer_index(r, size);
    Dims out(size.begin(), size.end());
    int64_t known = 1;
    for (size_t k = 0; k < out.size(); ++k)
      if (int(k) != infer) known *= out[k];
    if (infer >= 0) {
      if (known == 0 || n % known != 0) r.fail("cannot view {} elements as {}", n, dims_str(Dims(size.begin(), size.end())));
      out[size_t(infer)] = n / known;
    } else if (known != n) {
      r.fail("cannot view {} ({} elements) as {}", dims_str(r.tensor(0).dims), n, dims_str(out));
    }
    r.set_dims(2, out);
    if (!view) set_copy(r, c, {n}, 0, {1}, 0, {1});
  });
}

void build_slice(OpBuilder& b) {
  b.check_args(6);
  build_common(b, 5);
  const bool start_none = b.is_none(2), end_none = b.is_none(3);
  if (!start_none) b.int_arg(2);
  if (!end_none) b.int_arg(3);
  const int64_t step = b.is_none(4) ? 1 : b.int_arg(4);
  b.check(step > 0, "slice step must be positive, got {}", step);
  b.check(b.tensor(0).dims.size() > 0, "cannot slice a 0-d tensor");
  CopyDispatch c = declare_copy(b, b.arg(0), b.arg(5));
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    const int64_t dim = norm_dim(r.int_arg(1), int64_t(x.size()), r);
    const int64_t size = x[size_t(dim)];
    int64_t start = start_none ? 0 : r.int_arg(2);
    int64_t end = end_none ? size : r.int_arg(3);
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    const int64_t len = (end - start + step - 1) / step;
    Dims out = x;
    out[size_t(dim)] = len;
    r.set_dims(5, out);
    auto ss = contiguous_strides(x);
    const int64_t off = start * ss[size_t(dim)];
    ss[size_t(dim)] *= step;
    set_copy(r, c, out, off, ss, 0, contiguous_strides(out));
  });
}

void build_select(OpBuilder& b) {
  b.check_args(4);
  build_common(b, 3);
  b.int_arg(2);
  b.check(b.tensor(0).dims.size() > 0, "cannot select from a 0-d tensor");
  CopyDispatch c = declare_copy(b, b.arg(0), b.arg(3));
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    const int64_t dim = norm_dim(r.int_arg(1), int64_t(x.size()), r);
    const int64_t size = x[size_t(dim)];
    int64_t index = r.int_arg(2);
    if (index < -size || index >= size) r.fail("index {} out of range for dim {} of size {}", index, dim, size);
    if (index < 0) index += size;
    Dims out = x;
    out.erase(out.begin() + dim);
    auto xs = contiguous_strides(x);
    const int64_t off = index * xs[size_t(dim)];
    xs.erase(xs.begin() + dim);
    r.set_dims(3, out);
    set_copy(r, c, out, off, xs, 0, contiguous_strides(out));
  });
}

void build_permute(OpBuilder& b) {
  b.check_args(3);
  build_common(b, 2);
  const IntList dims = b.int_list(1);
  const int64_t rank = int64_t(b.tensor(0).dims.size());
  b.check(int64_t(dims.size()) == rank, "permutation {} has {} dims, the input has rank {}", dims_str(dims), dims.size(), rank);
  std::vector<int64_t> perm(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t d = norm_dim(dims[k], rank, b);
    b.check(!seen[size_t(d)], "dims {} is not a permutation", dims_str(dims));
    seen[size_t(d)] = true;
    perm[k] = d;
  }
  CopyDispatch c = declare_copy(b, b.arg(0), b.arg(2));
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (int64_t(x.size()) != rank) r.fail("live rank {} differs from the build rank {}", x.size(), rank);
    auto xs = contiguous_strides(x);
    Dims out(perm.size());
    std::vector<int64_t> ss(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) {
      out[k] = x[size_t(perm[k])];
      ss[k] = xs[size_t(perm[k])];
    }
    r.set_dims(2, out);
    set_copy(r, c, out, 0, ss, 0, contiguous_strides(out));
  });
}

bool legacy_empty(const Dims& d) { return d.size() == 1 && d[0] == 0; }

void build_cat(OpBuilder& b) {
  b.check_args(3);
  const std::vector<ValueId> ids = b.value_list(0);
  b.check(!ids.empty(), "cat needs at least one tensor");
  const DType dt = b.tensor(2).dtype;
  std::vector<CopyDispatch> copies;
  for (ValueId id : ids) {
    const TensorValue& t = b.tensor_by_id(id);
    b.check(t.dtype == dt, "tensor '{}' is {}, the output is {}", t.name, dtype_name(t.dtype), dtype_name(dt));
    b.check(t.dims.size() <= 8, "tensor '{}' has rank {} (at most 8)", t.name, t.dims.size());
    copies.push_back(declare_copy(b, id, b.arg(2)));
  }
  check_32bit(b, 2);
  b.int_arg(1);
  b.on_resize([=](ResizeContext& r) {
    const Dims* ref = nullptr;
    for (ValueId id : ids)
      if (!legacy_empty(r.tensor_by_id(id).dims)) {
        ref = &r.tensor_by_id(id).dims;
        break;
      }
    if (!ref) {  // all inputs are legacy empty tensors
      r.set_dims(2, {0});
      for (const CopyDispatch& c : copies) r.set_workgroups(c.dispatch, 0);
      return;
    }
    const Dims first = *ref;
    const int64_t dim = norm_dim(r.int_arg(1), int64_t(first.size()), r);
    Dims out = first;
    out[size_t(dim)] = 0;
    for (ValueId id : ids) {
      const TensorValue& t = r.tensor_by_id(id);
      if (legacy_empty(t.dims)) continue;
      bool ok = t.dims.size() == first.size();
      for (size_t k = 0; ok && k < first.size(); ++k) ok = int64_t(k) == dim || t.dims[k] == first[k];
      if (!ok) r.fail("tensor '{}' {} does not match {} outside dim {}", t.name, dims_str(t.dims), dims_str(first), dim);
      out[size_t(dim)] += t.dims[size_t(dim)];
    }
    r.set_dims(2, out);
    const auto os = contiguous_strides(out);
    int64_t at = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      const Dims d = r.tensor_by_id(ids[i]).dims;
      if (legacy_empty(d)) {
        r.set_workgroups(copies[i].dispatch, 0);
        continue;
      }
      set_copy(r, copies[i], d, 0, contiguous_strides(d), at * os[size_t(dim)], os);
      at += d[size_t(dim)];
    }
  });
}

}  // namespace

void register_copy_ops(OpRegistry& r) {
  std::vector<std::string> k = {"ops/copy/strided_copy.wgsl:main"};
  r.add({"aten.view_copy.default", build_view, k, true});
  r.add({"aten.slice_copy.Tensor", build_slice, k, true});
  r.add({"aten.select_copy.int", build_select, k, true});
  r.add({"aten.permute_copy.default", build_permute, k, true});
  r.add({"aten.cat.default", build_cat, k, true});
}

}  // namespace wgrt::ops
