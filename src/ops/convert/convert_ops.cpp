// Tensor conversion ops:
//   aten._to_copy.default(x, dtype int, out): dtype is a PyTorch ScalarType code, 6 (float32) or 3 (int32);
//       x and out are f32 or i32 (out's dtype must be the requested one). f32 -> i32 truncates toward zero
//       (PyTorch's cast); out-of-range values clamp to the i32 range (PyTorch: undefined). Other keyword
//       arguments of PyTorch's schema (layout, device, memory_format...) are not taken.
//   aten.split_with_sizes_copy.default(x (32-bit dtype, rank <= 8), split_sizes IntList, dim int, outs ValueList):
//       out k = x.narrow(dim, sum(sizes[:k]), sizes[k]); sizes must be >= 0 and sum to x.size(dim) (checked at
//       build and at every execute). Each output is one dispatch of the shared strided-copy kernel
//       (ops/copy/strided_copy.wgsl, whose parameter block CopyParams mirrors).
// Other dims may change between executes (resize hooks). Errors: InvalidArgument naming the node.
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {


struct ConvertParams {
  uint32_t n, p0, p1, p2;
};
WGRT_UNIFORM(ConvertParams, n, p0, p1, p2);

void build_to_copy(OpBuilder& b) {
  b.check_args(3);
  const int64_t code = b.int_arg(1);
  b.check(code == 6 || code == 3, "dtype {} is not supported (6 = float32, 3 = int32)", code);
  const DType want = code == 6 ? DType::F32 : DType::I32;
  const DType in = b.tensor(0).dtype;
  b.check(in == DType::F32 || in == DType::I32, "x '{}' must be f32 or i32, got {}", b.tensor(0).name, dtype_name(in));
  b.check_dtype(2, want);
  const uint32_t mode = in == want ? 0 : in == DType::F32 ? 1 : 2;
  UniformRef u = b.uniform<ConvertParams>();
  DispatchRef d = b.dispatch({"ops/convert/convert.wgsl", "main", {{"MODE", double(mode)}}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(2)), u});
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (numel(x) >= (int64_t(1) << 32)) r.fail("x {} too large", dims_str(x));
    r.set_dims(2, x);
    r.set_uniform(u, ConvertParams{uint32_t(numel(x)), 0, 0, 0});
    r.set_invocations(d, uint64_t(numel(x)));
  });
}

// Mirrors the Params block of ops/copy/strided_copy.wgsl.
struct CopyParams {
  uint32_t n, rank, src_off, dst_off;
  uint32_t shape[8], src_strides[8], dst_strides[8];
};
WGRT_UNIFORM(CopyParams, n, rank, src_off, dst_off, shape, src_strides, dst_strides);

void build_split(OpBuilder& b) {
  b.check_args(4);
  const DType t = b.tensor(0).dtype;
  b.check(t == DType::F32 || t == DType::I32 || t == DType::U32, "x '{}' must have a 32-bit dtype", b.tensor(0).name);
  b.check_rank(0, 1, 8);
  const size_t rank = b.tensor(0).dims.size();
  int64_t dim = b.int_arg(2);
  if (dim < 0) dim += int64_t(rank);
  b.check(dim >= 0 && dim < int64_t(rank), "dim {} out of range for rank {}", b.int_arg(2), rank);
  const IntList sizes = b.int_list(1);
  const std::vector<ValueId> outs = b.value_list(3);
  b.check(sizes.size() == outs.size(), "{} split sizes but {} outputs", sizes.size(), outs.size());
  int64_t sum = 0;
  for (int64_t s : sizes) {
    b.check(s >= 0, "split sizes must be >= 0, got {}", dims_str(sizes));
    sum += s;
  }
  b.check(sum == b.tensor(0).dims[size_t(dim)], "split sizes {} sum to {}, but x '{}' {} has {} along dim {}",
          dims_str(sizes), sum, b.tensor(0).name, dims_str(b.tensor(0).dims), b.tensor(0).dims[size_t(dim)], dim);
  std::vector<std::pair<UniformRef, DispatchRef>> disp;
  for (ValueId o : outs) {
    b.check(b.tensor_by_id(o).dtype == t, "output '{}' must have x's dtype {}", b.tensor_by_id(o).name, dtype_name(t));
    UniformRef u = b.uniform<CopyParams>();
    disp.push_back({u, b.dispatch({"ops/copy/strided_copy.wgsl", "main", {}, {}},
                                  {Binding::tensor(b.arg(0)), Binding::tensor(o), u})});
  }
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(0).dims;
    if (x.size() != rank || x[size_t(dim)] != sum)
      r.fail("x '{}' live dims {} must keep rank {} and {} along dim {}", r.tensor(0).name, dims_str(x), rank, sum, dim);
    if (numel(x) >= (int64_t(1) << 32)) r.fail("x {} too large", dims_str(x));
    std::vector<int64_t> st(rank, 1);
    for (size_t k = rank; k-- > 1;) st[k - 1] = st[k] * x[k];
    int64_t off = 0;
    for (size_t i = 0; i < outs.size(); ++i) {
      Dims od = x;
      od[size_t(dim)] = sizes[i];
      TensorValue& ot = r.tensor_by_id(outs[i]);
      if (ot.infer_dims) {  // at build: a list member's inferred max dims are set here (not by the framework)
        ot.max_dims = od;
        ot.infer_dims = false;
      }
      for (size_t k = 0; k < rank; ++k)
        if (ot.max_dims.size() != rank || od[k] > ot.max_dims[k])
          throw LimitError(r.where() + fmt::format("output '{}' would have dims {}, beyond its max {}", ot.name,
                                                   dims_str(od), dims_str(ot.max_dims)));
      ot.dims = od;
      CopyParams p{};
      p.n = uint32_t(numel(od));
      p.rank = uint32_t(rank);
      p.src_off = uint32_t(off * st[size_t(dim)]);
      int64_t ds = 1;
      for (size_t k = rank; k-- > 0;) {
        p.shape[k] = uint32_t(od[k]);
        p.src_strides[k] = uint32_t(st[k]);
        p.dst_strides[k] = uint32_t(ds);
        ds *= od[k];
      }
      r.set_uniform(disp[i].first, p);
      r.set_invocations(disp[i].second, p.n);
      off += sizes[i];
    }
  });
}

}  // namespace

void register_convert_ops(OpRegistry& r) {
  r.add({"aten._to_copy.default", build_to_copy, {"ops/convert/convert.wgsl:main"}, true});
  r.add({"aten.split_with_sizes_copy.default", build_split, {"ops/copy/strided_copy.wgsl:main"}, true});
}

}  // namespace wgrt::ops
