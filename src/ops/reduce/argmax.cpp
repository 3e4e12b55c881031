// aten.argmax.default(x f32, dim int | None, keepdim bool, out i32):
//   dim = last (or -1): out [...] (keepdim: [..., 1]) = index of the row maximum along the last dim;
//   dim = None: over all elements (row-major flat index), out [] (keepdim: all dims 1).
//   Ties give the lowest index; NaN entries are ignored (PyTorch would return a NaN's index; ignoring NaN
//   keeps greedy decoding meaningful); a row of only NaN gives 0. Other dims: build error.
// wgrt.argmax_checked.default(x, dim, keepdim, out): the same, except that a row holding any NaN or +-inf
//   gives -1 (greedy decoding reports non-finite logits instead of emitting token 0).
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct RowParams {
  uint32_t rows, D, pad0, pad1;
};
WGRT_UNIFORM(RowParams, rows, D, pad0, pad1);

void build_argmax(OpBuilder& b, bool checked) {
  b.check_args(4);
  b.check_dtype(0, DType::F32);
  b.check_dtype(3, DType::I32);
  b.check_rank(0, 1, 8);
  const int64_t rank = int64_t(b.tensor(0).dims.size());
  const bool flat = b.is_none(1);
  if (!flat) {
    int64_t dim = b.int_arg(1);
    if (dim < 0) dim += rank;
    b.check(dim == rank - 1, "dim {} must be the last dim of x '{}' {} (-1 or {}) or None", b.int_arg(1),
            b.tensor(0).name, dims_str(b.tensor(0).dims), rank - 1);
  }
  const bool keepdim = b.bool_arg(2);
  const int64_t D = flat ? numel(b.tensor(0).dims) : b.tensor(0).dims.back();
  b.check(D > 0, "x '{}' {} is empty along the reduced dims", b.tensor(0).name, dims_str(b.tensor(0).dims));
  UniformRef u = b.uniform<RowParams>();
  // Route 0: one workgroup per row; route 1 (rows longer than the kernel's CHUNK, e.g. a vocabulary): two
  // passes, chunks of CHUNK elements in parallel, then one merge per row.
  const std::vector<std::pair<std::string, double>> k = {{"CHECKED", checked ? 1.0 : 0.0}};
  const webgpu::KernelSpec main{"ops/reduce/argmax.wgsl", "main", k, {}};
  const uint64_t chunk = webgpu::PipelineCache::value(main, "CHUNK");
  const int64_t max_rows = numel(b.tensor(0).dims) / D;
  ScratchRef part = b.scratch(uint64_t(max_rows) * div_up(uint64_t(D), chunk) * 8, "argmax partials");
  const std::vector<Binding> binds = {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(3)), u, part};
  DispatchRef d = b.dispatch(main, binds, 0);
  DispatchRef dp = b.dispatch({"ops/reduce/argmax.wgsl", "partial", k, {}}, binds, 1);
  DispatchRef dc = b.dispatch({"ops/reduce/argmax.wgsl", "combine", k, {}}, binds, 1);
  b.on_resize([=](ResizeContext& r) {
    const Dims xd = r.tensor(0).dims;
    Dims od;
    int64_t rowlen = 0;
    if (flat) {
      rowlen = numel(xd);
      if (keepdim) od.assign(xd.size(), 1);
    } else {
      rowlen = xd.back();
      od = xd;
      if (keepdim) od.back() = 1;
      else od.pop_back();
    }
    if (rowlen <= 0) r.fail("argmax of x '{}' {} over an empty dim", r.tensor(0).name, dims_str(xd));
    r.set_dims(3, od);
    const uint64_t rows = uint64_t(numel(xd) / rowlen);
    const uint64_t chunks = div_up(uint64_t(rowlen), chunk);
    r.set_uniform(u, RowParams{uint32_t(rows), uint32_t(rowlen), uint32_t(chunks), 0});
    const bool two_pass = chunks > 1;
    r.select_route(two_pass ? 1 : 0);
    r.set_workgroups(d, two_pass ? 0 : rows);
    r.set_workgroups(dp, two_pass ? rows * chunks : 0);
    r.set_workgroups(dc, two_pass ? rows : 0);
  });
}

}  // namespace

void register_argmax_ops(OpRegistry& r) {
  const std::vector<std::string> kernels = {"ops/reduce/argmax.wgsl:main", "ops/reduce/argmax.wgsl:partial",
                                            "ops/reduce/argmax.wgsl:combine"};
  r.add({"aten.argmax.default", [](OpBuilder& b) { build_argmax(b, false); }, kernels, true});
  r.add({"wgrt.argmax_checked.default", [](OpBuilder& b) { build_argmax(b, true); }, kernels, true});
}

}  // namespace wgrt::ops
