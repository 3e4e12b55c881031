// Rotary position embedding with one position per row (the serving batch: rows of several sequences):
//   wgrt.rope_rows.default(xq [1,R,Hq,D], xk [1,R,Hkv,D], freqs_cos [C_max,D/2], freqs_sin [C_max,D/2],
//                          pos i32 [R], xq_out, xk_out)      Meta / llama2.c interleaved pairs
//   wgrt.rope_rows_hf.default(same arguments)                 Hugging Face rotate-half pairs
// Row s is rotated by the angles of table row pos[s] (et_vk.apply_rotary_emb uses input_pos + s instead).
// f32; out dims = input dims. Tables come from rope_tables() (ops/rope/rope_tables.h).
// Errors: build-time shape/dtype mismatches (InvalidArgument); a position outside [0, C_max) in the host copy
// of pos at execute (LimitError naming the row).
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct RopeRowsParams {
  uint32_t nq, nk, half, hq, hkv, c_max, pad0, pad1;
};
WGRT_UNIFORM(RopeRowsParams, nq, nk, half, hq, hkv, c_max, pad0, pad1);

void build_rope_rows(OpBuilder& b, bool hf) {
  b.check_args(7);
  for (size_t i : {0, 1, 2, 3, 5, 6}) b.check_dtype(i, DType::F32);
  b.check_dtype(4, DType::I32);
  b.check_rank(0, 4, 4);
  b.check_rank(1, 4, 4);
  b.check_rank(2, 2, 2);
  b.check_rank(3, 2, 2);
  const Dims& q = b.tensor(0).dims;
  const Dims& k = b.tensor(1).dims;
  const Dims& fc = b.tensor(2).dims;
  b.check(q[0] == 1 && k[0] == 1 && q[1] == k[1] && q[3] == k[3], "xq {} and xk {} must be [1, R, H, D] with equal R and D",
          dims_str(q), dims_str(k));
  b.check(q[3] % 2 == 0 && q[3] > 0, "head dim {} must be even", q[3]);
  b.check(fc == b.tensor(3).dims, "freqs_cos {} and freqs_sin {} differ", dims_str(fc), dims_str(b.tensor(3).dims));
  b.check(fc[1] == q[3] / 2, "freqs tables {} must be [C_max, D/2 = {}]", dims_str(fc), q[3] / 2);
  b.check(b.tensor(4).dims == Dims{q[1]}, "pos {} must be [R = {}]", dims_str(b.tensor(4).dims), q[1]);
  const int64_t c_max = fc[0];
  UniformRef params = b.uniform<RopeRowsParams>();
  std::vector<Binding> bind;
  for (size_t i : {0, 1, 2, 3, 4, 5, 6}) bind.push_back(Binding::tensor(b.arg(i)));
  bind.push_back(params);
  DispatchRef d = b.dispatch({"ops/rope/rope_rows.wgsl", "main", {{"HF", hf ? 1.0 : 0.0}}, {}}, std::move(bind));
  b.on_resize([=](ResizeContext& r) {
    const Dims q = r.tensor(0).dims, k = r.tensor(1).dims;
    if (q[1] != k[1] || q[3] != k[3] || r.tensor(4).dims != Dims{q[1]})
      r.fail("xq {}, xk {} and pos {} must agree in R and D", dims_str(q), dims_str(k), dims_str(r.tensor(4).dims));
    std::span<const int32_t> ps = r.input_host_i32(4);
    for (size_t i = 0; i < ps.size() && int64_t(i) < q[1]; ++i)
      if (ps[i] < 0 || ps[i] >= c_max)
        throw LimitError(r.where() + fmt::format("row {} has position {} outside the RoPE table length (context) {}", i, ps[i], c_max));
    r.set_dims(5, q);
    r.set_dims(6, k);
    RopeRowsParams p{};
    p.half = uint32_t(q[3] / 2);
    p.nq = uint32_t(numel(q) / 2);
    p.nk = uint32_t(numel(k) / 2);
    p.hq = uint32_t(std::max<int64_t>(q[2], 1));
    p.hkv = uint32_t(std::max<int64_t>(k[2], 1));
    p.c_max = uint32_t(c_max);
    r.set_uniform(params, p);
    r.set_invocations(d, uint64_t(p.nq) + p.nk);
  });
}

}  // namespace

void register_rope_rows_ops(OpRegistry& r) {
  std::vector<std::string> k = {"ops/rope/rope_rows.wgsl:main"};
  r.add({"wgrt.rope_rows.default", [](OpBuilder& b) { build_rope_rows(b, false); }, k, true});
  r.add({"wgrt.rope_rows_hf.default", [](OpBuilder& b) { build_rope_rows(b, true); }, k, true});
}

}  // namespace wgrt::ops
