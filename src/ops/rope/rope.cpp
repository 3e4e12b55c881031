// Rotary position embedding, one kernel body (rope_body.wgsl) with two ways to give a token its position:
//   et_vk.apply_rotary_emb.default(xq [B,S,Hq,D], xk [B,S,Hkv,D], freqs_cos [C_max,D/2], freqs_sin [C_max,D/2],
//                                  input_pos (Int|SymInt), xq_out, xk_out)
//       a live start position (one graph serves prefill and decode): token s uses table row input_pos + s.
//   wgrt.rope_rows.default(xq [1,R,Hq,D], xk [1,R,Hkv,D], freqs_cos, freqs_sin, pos i32 [R], xq_out, xk_out)
//       one position per row (the serving batch: rows of several sequences): row s uses table row pos[s].
//   The _hf variants (et_vk.apply_rotary_emb_hf, wgrt.rope_rows_hf) rotate Hugging Face rotate-half pairs
//   (x[i], x[i+D/2]); the others Meta / llama2.c interleaved pairs (x[2i], x[2i+1]).
// f32; out dims = input dims. Tables come from rope_tables() (ops/rope/rope_tables.h).
// Errors: build-time shape/dtype mismatches (InvalidArgument); at execute, input_pos < 0 or input_pos + S > C_max,
// or a position outside [0, C_max) in the host copy of pos (LimitError naming the node, and the row).
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

// rope_body.wgsl's Params.
struct RopeParams {
  uint32_t nq, nk, seq, half, hq, hkv, pos, c_max;
};
WGRT_UNIFORM(RopeParams, nq, nk, seq, half, hq, hkv, pos, c_max);

enum Arg : size_t { XQ, XK, COS, SIN, POS, QOUT, KOUT, NARGS };

// rows: wgrt.rope_rows (POS is an i32 tensor [R]) rather than et_vk.apply_rotary_emb (POS an int).
void build_rope(OpBuilder& b, bool hf, bool rows) {
  b.check_args(NARGS);
  for (size_t i : {XQ, XK, COS, SIN, QOUT, KOUT}) b.check_dtype(i, DType::F32);
  b.check_rank(XQ, 4, 4);
  b.check_rank(XK, 4, 4);
  b.check_rank(COS, 2, 2);
  b.check_rank(SIN, 2, 2);
  const Dims& q = b.tensor(XQ).dims;
  const Dims& k = b.tensor(XK).dims;
  const Dims& fc = b.tensor(COS).dims;
  b.check(q[0] == k[0] && q[1] == k[1] && q[3] == k[3], "xq {} and xk {} must agree in B, S and D", dims_str(q), dims_str(k));
  b.check(q[3] % 2 == 0 && q[3] > 0, "head dim {} must be even", q[3]);
  b.check(fc == b.tensor(SIN).dims, "freqs_cos {} and freqs_sin {} differ", dims_str(fc), dims_str(b.tensor(SIN).dims));
  b.check(fc[1] == q[3] / 2, "freqs tables {} must be [C_max, D/2 = {}]", dims_str(fc), q[3] / 2);
  if (rows) {
    b.check_dtype(POS, DType::I32);
    b.check(q[0] == 1, "xq {} must be [1, R, H, D]", dims_str(q));
    b.check(b.tensor(POS).dims == Dims{q[1]}, "pos {} must be [R = {}]", dims_str(b.tensor(POS).dims), q[1]);
  } else {
    b.int_arg(POS);
  }
  const int64_t c_max = fc[0];
  UniformRef params = b.uniform<RopeParams>();
  std::vector<Binding> bind;
  for (size_t i : {XQ, XK, COS, SIN}) bind.push_back(Binding::tensor(b.arg(i)));
  if (rows) bind.push_back(Binding::tensor(b.arg(POS)));
  bind.push_back(Binding::tensor(b.arg(QOUT)));
  bind.push_back(Binding::tensor(b.arg(KOUT)));
  bind.push_back(params);
  DispatchRef d = b.dispatch({rows ? "ops/rope/rope_rows.wgsl" : "ops/rope/rope.wgsl", "main", {{"HF", hf ? 1.0 : 0.0}}, {}},
                             std::move(bind));
  b.on_resize([=](ResizeContext& r) {
    const Dims q = r.tensor(XQ).dims, k = r.tensor(XK).dims;
    if (q[0] != k[0] || q[1] != k[1] || q[3] != k[3]) r.fail("xq {} and xk {} must agree in B, S and D", dims_str(q), dims_str(k));
    int64_t pos = 0;
    if (rows) {
      if (r.tensor(POS).dims != Dims{q[1]}) r.fail("pos {} must be [R = {}]", dims_str(r.tensor(POS).dims), q[1]);
      std::span<const int32_t> ps = r.input_host_i32(POS);
      for (size_t i = 0; i < ps.size() && int64_t(i) < q[1]; ++i)
        if (ps[i] < 0 || ps[i] >= c_max)
          throw LimitError(r.where() + fmt::format("row {} has position {} outside the RoPE table length (context) {}", i, ps[i], c_max));
    } else {
      pos = r.int_arg(POS);
      if (pos < 0 || pos + q[1] > c_max)
        throw LimitError(r.where() + fmt::format("input_pos {} + {} tokens exceeds the RoPE table length (context) {}", pos, q[1], c_max));
    }
    r.set_dims(QOUT, q);
    r.set_dims(KOUT, k);
    RopeParams p{};
    p.half = uint32_t(q[3] / 2);
    p.nq = uint32_t(numel(q) / 2);
    p.nk = uint32_t(numel(k) / 2);
    p.seq = uint32_t(std::max<int64_t>(q[1], 1));
    p.hq = uint32_t(std::max<int64_t>(q[2], 1));
    p.hkv = uint32_t(std::max<int64_t>(k[2], 1));
    p.pos = uint32_t(pos);
    p.c_max = uint32_t(c_max);
    r.set_uniform(params, p);
    r.set_invocations(d, uint64_t(p.nq) + p.nk);
  });
}

}  // namespace

void register_rope_ops(OpRegistry& r) {
  const std::vector<std::string> k = {"ops/rope/rope.wgsl:main"}, kr = {"ops/rope/rope_rows.wgsl:main"};
  r.add({"et_vk.apply_rotary_emb.default", [](OpBuilder& b) { build_rope(b, false, false); }, k, true});
  r.add({"et_vk.apply_rotary_emb_hf.default", [](OpBuilder& b) { build_rope(b, true, false); }, k, true});
  r.add({"wgrt.rope_rows.default", [](OpBuilder& b) { build_rope(b, false, true); }, kr, true});
  r.add({"wgrt.rope_rows_hf.default", [](OpBuilder& b) { build_rope(b, true, true); }, kr, true});
}

}  // namespace wgrt::ops
