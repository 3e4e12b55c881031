// wgrt.rope_qkv_cache.default(qkv [B,S,(Hq+2Hkv)*D] f32, freqs_cos [C_max,D/2] | None, freqs_sin [C_max,D/2] | None,
//                             input_pos (Int|SymInt), n_heads Int Hq, n_kv_heads Int Hkv, hf Bool,
//                             v [B,S,Hkv*D] | None, k_cache [B,C_max,Hkv,D], v_cache [B,C_max,Hkv,D], q_out [B,S,Hq,D])
//   wgrt's own op for the decoder layer after one GEMV over the stacked weight [Wq; Wk; Wv] (rows of x @ [Wq; Wk; Wv]^T:
//   Hq query heads, then Hkv key heads, then Hkv value heads, D each): in one dispatch (rope_qkv.wgsl)
//     q_out[b,s,h]                  = rope(q head h of token s, position input_pos + s)
//     k_cache[b, input_pos + s, h]  = rope(k head h, same position)
//     v_cache[b, input_pos + s, h]  = v head h
//   i.e. et_vk.apply_rotary_emb(_hf) on q and k followed by the cache write of llama.sdpa_with_kv_cache, which
//   then runs with k and v None (the caches already hold the rows). hf selects the Hugging Face rotate-half pairs
//   (x[i], x[i+D/2]), else Meta / llama2.c interleaved pairs (x[2i], x[2i+1]); tables from rope_tables()
//   (ops/rope/rope_tables.h). freqs None: no rotation (NoPE layers), q and k are copied. v given: qkv holds only
//   q and k ([B,S,(Hq+Hkv)*D], the stacked [Wq; Wk] where Wv is stored in another format) and the v heads come
//   from v.
// f32; the caches f32 or f16 (D % 4 == 0: kv_cache.h), graph State tensors, written in place.
// Errors: build-time shape/dtype mismatches (InvalidArgument); at execute, input_pos < 0 or input_pos + S beyond
// the cache or the RoPE tables (LimitError naming the node; nothing is written, the graph stays usable).
#include "ops/rope/rope_qkv.h"

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/kv_cache/kv_cache.h"

namespace wgrt::ops {

RopeQkvDispatch add_rope_qkv(OpBuilder& b, Binding qkv, std::optional<Binding> cos, std::optional<Binding> sin,
                             std::optional<Binding> vin, Binding q_out, Binding k_cache, Binding v_cache, bool hf,
                             DType kv_type, int route) {
  const bool rotate = cos.has_value();
  RopeQkvDispatch r;
  r.u = b.uniform<RopeQkvParams>();
  r.per_word = kv_per_word(kv_type);
  r.d = b.dispatch({"ops/rope/rope_qkv.wgsl", "main", {{"HF", hf ? 1.0 : 0.0}, {"ROTATE", rotate ? 1.0 : 0.0}}, {},
                    kv_prelude(kv_type)},
                   {qkv, rotate ? *cos : qkv, rotate ? *sin : qkv, vin ? *vin : qkv, q_out, k_cache, v_cache, r.u},
                   route);
  return r;
}

void set_rope_qkv(ResizeContext& r, const RopeQkvDispatch& d, int64_t B, int64_t S, int64_t pos, int64_t hq, int64_t hkv,
                  int64_t D, int64_t c_max, bool vsep) {
  const RopeQkvParams p{uint32_t(B * S * (hq + 2 * hkv) * D / 2), uint32_t(D / 2), uint32_t(hq), uint32_t(hkv),
                        uint32_t(std::max<int64_t>(S, 1)), uint32_t(pos), uint32_t(c_max), vsep ? 1u : 0u};
  r.set_uniform(d.u, p);
  r.set_invocations(d.d, p.pairs / d.per_word);
}

void check_rope_positions(const ResizeContext& r, int64_t pos, int64_t S, int64_t rows) {
  if (pos < 0 || pos + S > rows)
    throw LimitError(r.where() + fmt::format("input_pos {} + {} tokens exceeds the cache / RoPE table length (context) {}",
                                             pos, S, rows));
}

namespace {

enum Arg : size_t { QKV, COS, SIN, POS, HQ, HKV, HF, VIN, KC, VC, QOUT, NARGS };

void build_rope_qkv(OpBuilder& b) {
  b.check_args(NARGS);
  for (size_t i : {QKV, QOUT}) b.check_dtype(i, DType::F32);
  const DType kv_type = check_kv_cache_dtype(b, KC, VC);
  b.check_rank(QKV, 3, 3);
  b.check_rank(KC, 4, 4);
  b.check_rank(VC, 4, 4);
  b.check_rank(QOUT, 4, 4);
  const int64_t hq = b.int_arg(HQ), hkv = b.int_arg(HKV);
  const bool hf = b.bool_arg(HF), rotate = !b.is_none(COS), vsep = !b.is_none(VIN);
  b.check(hq > 0 && hkv > 0, "head counts must be > 0, got {} and {}", hq, hkv);
  const Dims x = b.tensor(QKV).dims, kc = b.tensor(KC).dims;
  const int64_t D = kc[3];
  b.check(D > 0 && D % 2 == 0, "head dim {} must be even", D);
  const int64_t W = (hq + (vsep ? 1 : 2) * hkv) * D;  // qkv row width
  b.check(x[2] == W, "qkv {} must end in (Hq + {} Hkv) * D = {}", dims_str(x), vsep ? 1 : 2, W);
  if (vsep) {
    b.check_dtype(VIN, DType::F32);
    b.check(b.tensor(VIN).dims == Dims{x[0], x[1], hkv * D}, "v {} must be [{}, {}, {}]", dims_str(b.tensor(VIN).dims),
            x[0], x[1], hkv * D);
  }
  b.check(kc == b.tensor(VC).dims, "k_cache {} and v_cache {} differ", dims_str(kc), dims_str(b.tensor(VC).dims));
  b.check(kc[0] == x[0] && kc[2] == hkv, "caches {} must be [B = {}, C_max, Hkv = {}, D]", dims_str(kc), x[0], hkv);
  int64_t table_rows = kc[1];
  if (rotate) {
    b.check(!b.is_none(SIN), "freqs_cos given without freqs_sin");
    b.check_dtype(COS, DType::F32);
    b.check_dtype(SIN, DType::F32);
    const Dims fc = b.tensor(COS).dims;
    b.check(fc.size() == 2 && fc[1] == D / 2 && fc == b.tensor(SIN).dims, "freqs tables {} / {} must be [C_max, D/2 = {}]",
            dims_str(fc), dims_str(b.tensor(SIN).dims), D / 2);
    table_rows = std::min(table_rows, fc[0]);
  }
  b.int_arg(POS);
  const Binding q = Binding::tensor(b.arg(QKV));
  const RopeQkvDispatch d = add_rope_qkv(b, q, rotate ? std::optional<Binding>(Binding::tensor(b.arg(COS))) : std::nullopt,
                                         rotate ? std::optional<Binding>(Binding::tensor(b.arg(SIN))) : std::nullopt,
                                         vsep ? std::optional<Binding>(Binding::tensor(b.arg(VIN))) : std::nullopt,
                                         Binding::tensor(b.arg(QOUT)), Binding::tensor(b.arg(KC)), Binding::tensor(b.arg(VC)),
                                         hf, kv_type, -1);
  b.on_resize([=](ResizeContext& r) {
    const Dims x = r.tensor(QKV).dims;
    if (x.size() != 3 || x[2] != W || x[0] != kc[0]) r.fail("live qkv {} must be [{}, S, {}]", dims_str(x), kc[0], W);
    if (vsep && r.tensor(VIN).dims != Dims{x[0], x[1], hkv * D})
      r.fail("live v {} must be [{}, {}, {}]", dims_str(r.tensor(VIN).dims), x[0], x[1], hkv * D);
    const int64_t pos = r.int_arg(POS);
    check_rope_positions(r, pos, x[1], table_rows);
    r.set_dims(QOUT, {x[0], x[1], hq, D});
    set_rope_qkv(r, d, x[0], x[1], pos, hq, hkv, D, kc[1], vsep);
  });
}

}  // namespace

void register_rope_qkv_ops(OpRegistry& r) {
  r.add({"wgrt.rope_qkv_cache.default", build_rope_qkv, {"ops/rope/rope_qkv.wgsl:main"}, true});
}

}  // namespace wgrt::ops
