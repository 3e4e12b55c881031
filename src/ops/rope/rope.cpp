// Rotary position embedding with a live start position (one graph serves prefill and decode):
//   et_vk.apply_rotary_emb.default(xq [B,S,Hq,D], xk [B,S,Hkv,D], freqs_cos [C_max,D/2], freqs_sin [C_max,D/2],
//                                  input_pos (Int|SymInt), xq_out, xk_out)
//       Meta Llama / llama2.c interleaved pairs (x[2i], x[2i+1]) rotated by the angle of row input_pos+s, column i.
//   et_vk.apply_rotary_emb_hf.default(same arguments)
//       Hugging Face rotate-half pairs (x[i], x[i+D/2]).
// f32; out dims = input dims. Tables come from rope_tables() (ops/rope/rope_tables.h).
// Errors: build-time shape/dtype mismatches (InvalidArgument); input_pos < 0 or input_pos + S > C_max at execute
// (LimitError naming the node).
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct RopeParams {
  uint32_t nq, nk, seq, half, hq, hkv, pos, pad;
};
WGRT_UNIFORM(RopeParams, nq, nk, seq, half, hq, hkv, pos, pad);

void build_rope(OpBuilder& b, bool hf) {
  b.check_args(7);
  for (size_t i : {0, 1, 2, 3, 5, 6}) b.check_dtype(i, DType::F32);
  b.check_rank(0, 4, 4);
  b.check_rank(1, 4, 4);
  b.check_rank(2, 2, 2);
  b.check_rank(3, 2, 2);
  const Dims& q = b.tensor(0).dims;
  const Dims& k = b.tensor(1).dims;
  const Dims& fc = b.tensor(2).dims;
  b.check(q[0] == k[0] && q[1] == k[1] && q[3] == k[3], "xq {} and xk {} must agree in B, S and D", dims_str(q), dims_str(k));
  b.check(q[3] % 2 == 0 && q[3] > 0, "head dim {} must be even", q[3]);
  b.check(fc == b.tensor(3).dims, "freqs_cos {} and freqs_sin {} differ", dims_str(fc), dims_str(b.tensor(3).dims));
  b.check(fc[1] == q[3] / 2, "freqs tables {} must be [C_max, D/2 = {}]", dims_str(fc), q[3] / 2);
  b.int_arg(4);
  const int64_t c_max = fc[0];
  UniformRef params = b.uniform<RopeParams>();
  DispatchRef d = b.dispatch({"ops/rope/rope.wgsl", "main", {{"HF", hf ? 1.0 : 0.0}}, {}},
                             {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), Binding::tensor(b.arg(2)),
                              Binding::tensor(b.arg(3)), Binding::tensor(b.arg(5)), Binding::tensor(b.arg(6)), params});
  b.on_resize([=](ResizeContext& r) {
    const Dims q = r.tensor(0).dims, k = r.tensor(1).dims;
    if (q[0] != k[0] || q[1] != k[1] || q[3] != k[3]) r.fail("xq {} and xk {} must agree in B, S and D", dims_str(q), dims_str(k));
    const int64_t pos = r.int_arg(4);
    if (pos < 0 || pos + q[1] > c_max)
      throw LimitError(r.where() + fmt::format("input_pos {} + {} tokens exceeds the RoPE table length (context) {}", pos, q[1], c_max));
    r.set_dims(5, q);
    r.set_dims(6, k);
    RopeParams p{};
    p.half = uint32_t(q[3] / 2);
    p.nq = uint32_t(numel(q) / 2);
    p.nk = uint32_t(numel(k) / 2);
    p.seq = uint32_t(std::max<int64_t>(q[1], 1));
    p.hq = uint32_t(std::max<int64_t>(q[2], 1));
    p.hkv = uint32_t(std::max<int64_t>(k[2], 1));
    p.pos = uint32_t(pos);
    r.set_uniform(params, p);
    r.set_invocations(d, uint64_t(p.nq) + p.nk);
  });
}

}  // namespace

void register_rope_ops(OpRegistry& r) {
  std::vector<std::string> k = {"ops/rope/rope.wgsl:main"};
  r.add({"et_vk.apply_rotary_emb.default", [](OpBuilder& b) { build_rope(b, false); }, k, true});
  r.add({"et_vk.apply_rotary_emb_hf.default", [](OpBuilder& b) { build_rope(b, true); }, k, true});
}

}  // namespace wgrt::ops
