// Embedding lookups (f32 output):
//   aten.embedding.default(weight [V, D] f32, indices i32 [any shape], out [indices..., D])
//       (the PyTorch form with padding_idx, scale_grad_by_freq, sparse before out is accepted too: those
//       only matter for training and are ignored)
//   et_vk.embedding_q4gsw.default(qweight u32 [V, D/8] (or q4 [V, D]), scales f16 or f32 [V, D/G], group_size int G,
//                                 indices i32, out [indices..., D])
//       rows in the q4gsw layout (ops/linear/q4gsw.h); G in {32, 64, 128}, D a multiple of G.
// Out-of-range ids (< 0 or >= V) produce a row of zeros; nothing is read out of bounds.
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct EmbParams {
  uint32_t n, D, V, group;
};
WGRT_UNIFORM(EmbParams, n, D, V, group);

void build_embedding(OpBuilder& b, bool q4) {
  size_t wi = 0, si = 1, ii = q4 ? 3 : 1, oi = b.num_args() - 1;
  if (q4) b.check_args(5);
  else b.check(b.num_args() == 3 || b.num_args() == 6, "expects 3 (weight, indices, out) or 6 arguments, got {}", b.num_args());
  b.check_dtype(ii, DType::I32);
  b.check_dtype(oi, DType::F32);
  const TensorValue& w = b.tensor(wi);
  b.check(w.dims.size() == 2, "weight '{}' must be 2-D [V, D], got {}", w.name, dims_str(w.dims));
  const int64_t V = w.dims[0];
  int64_t D = w.dims[1], G = 32;
  bool scale_f16 = false;
  if (q4) {
    G = b.int_arg(2);
    b.check(G == 32 || G == 64 || G == 128, "group_size must be 32, 64 or 128, got {}", G);
    if (w.dtype == DType::U32) D = w.dims[1] * 8;
    else b.check(w.dtype == DType::Q4, "qweight '{}' must be u32 (or q4), got {}", w.name, dtype_name(w.dtype));
    b.check(D % G == 0, "embedding dim D = {} must be a multiple of group_size {}", D, G);
    const TensorValue& s = b.tensor(si);
    b.check((s.dtype == DType::F32 || s.dtype == DType::F16) && s.dims == Dims{V, D / G},
            "scales '{}' ({} {}) must be f16 or f32 [{}, {}]", s.name, dtype_name(s.dtype), dims_str(s.dims), V, D / G);
    scale_f16 = s.dtype == DType::F16;
  } else {
    b.check_dtype(wi, DType::F32);
  }
  b.check(V > 0 && D > 0, "weight '{}' {} is empty", w.name, dims_str(w.dims));
  b.check(V < (int64_t(1) << 31), "vocabulary {} too large", V);
  b.check_rank(ii, 0, 7);
  UniformRef u = b.uniform<EmbParams>();
  Binding idx = Binding::tensor(b.arg(ii));
  DispatchRef d = b.dispatch({"ops/embedding/embedding.wgsl", "main", {{"Q4", q4 ? 1.0 : 0.0}, {"SCALE_F16", scale_f16 ? 1.0 : 0.0}}, {}},
                             {Binding::tensor(b.arg(wi)), q4 ? Binding::tensor(b.arg(si)) : idx, idx,
                              Binding::tensor(b.arg(oi)), u});
  b.on_resize([=](ResizeContext& r) {
    Dims od = r.tensor(ii).dims;
    od.push_back(D);
    r.set_dims(oi, od);
    const uint64_t n = uint64_t(numel(od));
    if (n >= (uint64_t(1) << 32)) r.fail("output {} too large", dims_str(od));
    r.set_uniform(u, EmbParams{uint32_t(n), uint32_t(D), uint32_t(V), uint32_t(G)});
    r.set_invocations(d, n);
  });
}

}  // namespace

void register_embedding_ops(OpRegistry& r) {
  r.add({"aten.embedding.default", [](OpBuilder& b) { build_embedding(b, false); }, {"ops/embedding/embedding.wgsl:main"}, true});
  r.add({"et_vk.embedding_q4gsw.default", [](OpBuilder& b) { build_embedding(b, true); },
         {"ops/embedding/embedding.wgsl:main"}, true});
}

}  // namespace wgrt::ops
