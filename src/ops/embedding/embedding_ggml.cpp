// Embedding lookup from weights kept in a ggml block format on the GPU (f32 output):
//   wgrt.embedding_ggml.default(w u32 [words], wtype int, V int, D int, indices i32 [any shape],
//                               out [indices..., D] f32)
//       w holds V rows of D elements as the file's raw blocks (row v at byte v * row_bytes, padded to whole
//       u32 words; layouts src/formats/ggml_blocks.h); wtype is the ggml type id (ops/linear/linear_ggml.h
//       lists the decoded ones). Out-of-range ids give a row of zeros.
// Weights larger than the tuning policy's max_binding_bytes (maxStorageBufferBindingSize or lower) are bound in
// chunks of whole multiples of 256 rows, one dispatch each writing the tokens whose id falls in its rows.
#include <wgrt/error.h>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "graph/uniform_layout.h"
#include "ops/families.h"
#include "ops/linear/linear_ggml.h"
#include "webgpu/device.h"

namespace wgrt::ops {

namespace {

struct Params {
  uint32_t n, D, V, row0, rows, row_bytes, zeros, pad;
};
WGRT_UNIFORM(Params, n, D, V, row0, rows, row_bytes, zeros, pad);

void build_embedding_ggml(OpBuilder& b) {
  b.check_args(6);
  const size_t ii = 4, oi = 5;
  b.check_dtype(ii, DType::I32);
  b.check_dtype(oi, DType::F32);
  b.check_rank(ii, 0, 7);
  const int64_t wtype = b.int_arg(1), V = b.int_arg(2), D = b.int_arg(3);
  const auto blk = ggml_gpu_block(wtype);
  b.check(blk.has_value(), "weight type id {} has no GPU kernel", wtype);
  b.check(V > 0 && V < (int64_t(1) << 31), "vocabulary {} is out of range", V);
  b.check(D > 0 && D % blk->elems == 0, "embedding dim {} must be a positive multiple of the block size {}", D, blk->elems);
  const uint64_t row_bytes = uint64_t(D / blk->elems) * uint64_t(blk->bytes), total = uint64_t(V) * row_bytes;
  const TensorValue& w = b.tensor(0);
  b.check(w.dtype == DType::U32 && w.dims.size() == 1 && uint64_t(w.dims[0]) == (total + 3) / 4,
          "weight '{}' must be u32 [{}] ({} rows of {} bytes, padded to words), got {} {}", w.name, (total + 3) / 4, V,
          row_bytes, dtype_name(w.dtype), dims_str(w.dims));
  std::vector<GgmlRowChunk> chunks;
  try {
    chunks = ggml_row_chunks(V, row_bytes, b.device().tuning().max_binding_bytes);
  } catch (const LimitError& e) {
    b.check(false, "{}", e.what());
  }
  const webgpu::KernelSpec spec{"ops/embedding/embedding_ggml.wgsl", "main", {{"WTYPE", double(wtype)}}, {}};
  struct Part {
    int64_t row0, rows;
    UniformRef u;
    DispatchRef d;
  };
  std::vector<Part> parts;
  for (const GgmlRowChunk& c : chunks) {
    const Binding wb = chunks.size() == 1 ? Binding::tensor(b.arg(0)) : Binding::tensor_range(b.arg(0), c.offset, c.size);
    const UniformRef u = b.uniform<Params>();
    parts.push_back({c.row0, c.rows, u, b.dispatch(spec, {wb, Binding::tensor(b.arg(ii)), Binding::tensor(b.arg(oi)), u})});
  }
  b.on_resize([=](ResizeContext& r) {
    Dims od = r.tensor(ii).dims;
    od.push_back(D);
    r.set_dims(oi, od);
    const uint64_t n = uint64_t(numel(od));
    if (n >= (uint64_t(1) << 32)) r.fail("output {} too large", dims_str(od));
    for (const Part& p : parts) {
      r.set_uniform(p.u, Params{uint32_t(n), uint32_t(D), uint32_t(V), uint32_t(p.row0), uint32_t(p.rows),
                                uint32_t(row_bytes), p.row0 == 0, 0});
      r.set_invocations(p.d, n);
    }
  });
}

}  // namespace

void register_embedding_ggml_ops(OpRegistry& r) {
  r.add({"wgrt.embedding_ggml.default", build_embedding_ggml, {"ops/embedding/embedding_ggml.wgsl:main"}, true});
}

}  // namespace wgrt::ops
