// wgrt.sdpa_batched.default(q [1,R,Hq,D], k [1,R,Hkv,D], v [1,R,Hkv,D], k_cache [N,C_max,Hkv,D],
//     v_cache [N,C_max,Hkv,D], slots i32 [R], pos i32 [R], scale (double|None: 1/sqrt(D)), out [1,R,Hq,D])
// Attention for a batch of rows from several sequences (the serving decode step, and prefill chunks mixed
// in): row r belongs to sequence slot slots[r] at position pos[r].
//   (a) k, v row r are written into the caches at [slots[r], pos[r]] (the caches are State tensors, one region
//       of C_max positions per slot);
//   (b) row r attends causally to positions [0, pos[r]] of its own slot: scores = q·kᵀ·scale, row softmax,
//       out = P·V. Rows of one slot in one call are typically consecutive positions of a prefill chunk; the
//       write runs before the attention, so they see each other as a causal prefill does.
// wgrt.sdpa_batched_swa.default(the same 8 arguments, softcap (double, 0: none), window (int, 0: none), out)
//   as above with gemma's options, as wgrt.sdpa_with_kv_cache_swa applies them (llama.cpp build_attn_mha):
//   scores s = (q·scale)·k become softcap*tanh(s/softcap) before the softmax, and row r sees only keys t with
//   pos[r] - t < window.
// GQA: Hq must be a multiple of Hkv; query head h reads kv head h / (Hq/Hkv). f32, D <= 256, N >= 1; the caches f32
// or f16 (D % 4 == 0; the kernels are built for their dtype: kv_cache.h kv_prelude).
// Errors: shapes/dtypes at build (InvalidArgument); the scores scratch [R*Hq, C_max] beyond
// maxStorageBufferBindingSize (LimitError at build); at execute, a slot outside [0, N) or a position outside
// [0, C_max) in the host copy of slots/pos (LimitError naming the row; nothing runs). Positions before pos[r]
// must hold that sequence's keys (earlier calls); the op does not track them.
// Routes (per execute, tuning sdpa_batched_decode_rows): the cache write (sdpa_batched_write.wgsl) first, then
//   decode (sdpa_batched_decode.wgsl; D % 4 == 0, not _swa, R <= the policy's rows): each row a decode query of
//     its slot, min(G, 8) query heads of one kv head per workgroup (sdpa_decode_body.wgsl, as
//     llama.sdpa_with_kv_cache's decode route), keys split by key_split.h's rule from the step's longest row
//     (base R*Hkv*blocks workgroups), a row using only its live splits; its combine only when the step splits;
//   scores (sdpa_batched.wgsl): one workgroup per (row, query head), scores in scratch [R*Hq, C_max].
// Follows: the per-sequence attention of llama.sdpa_with_kv_cache (sdpa.cpp) with a slot and position per row.
#include <cmath>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/attention/attn_options.h"
#include "ops/attention/key_split.h"
#include "ops/families.h"
#include "ops/kv_cache/kv_cache.h"
#include "webgpu/device.h"

namespace wgrt::ops {

namespace {

struct BatchedSdpaParams {
  uint32_t rows, hq, hkv, d, c_max, nslots;
  float scale;
  uint32_t window;
  float softcap;
  uint32_t chunk, nsplit, blocks;  // the decode route's key split and head blocks
};
WGRT_UNIFORM(BatchedSdpaParams, rows, hq, hkv, d, c_max, nslots, scale, window, softcap, chunk, nsplit, blocks);

constexpr int kRouteScores = 0, kRouteDecode = 1;
constexpr int64_t kDecodeMaxHeads = 8;  // sdpa_decode_body.wgsl HB bound (query heads per workgroup)

enum Arg : size_t { Q, K, V, KC, VC, SLOTS, POS, SCALE, NARGS };
enum ExtArg : size_t { SOFTCAP = NARGS, WINDOW };

// ext: the _swa variant (softcap and window before out).
void build_sdpa_batched(OpBuilder& b, bool ext) {
  const size_t OUT = ext ? WINDOW + 1 : NARGS;
  b.check_args(OUT + 1);
  const AttnOptions opt = read_attn_options(b, SOFTCAP, ext);  // (no structured binding: lambdas capture these)
  const double softcap = opt.softcap;
  const int64_t window = opt.window;
  for (size_t i : {Q, K, V, KC, VC}) {
    if (i != KC && i != VC) b.check_dtype(i, DType::F32);
    b.check_rank(i, 4, 4);
  }
  const DType kv_type = check_kv_cache_dtype(b, KC, VC);
  const std::vector<std::string> kv = kv_prelude(kv_type);
  const uint64_t per_word = kv_per_word(kv_type);  // cache elements per write invocation
  b.check_dtype(OUT, DType::F32);
  b.check_dtype(SLOTS, DType::I32);
  b.check_dtype(POS, DType::I32);
  const Dims& q = b.tensor(Q).dims;
  const Dims& k = b.tensor(K).dims;
  const Dims& kc = b.tensor(KC).dims;
  b.check(q[0] == 1 && k[0] == 1, "q {} and k {} must have batch dim 1 (rows go in dim 1)", dims_str(q), dims_str(k));
  b.check(k == b.tensor(V).dims, "k {} and v {} differ", dims_str(k), dims_str(b.tensor(V).dims));
  b.check(kc == b.tensor(VC).dims, "k_cache {} and v_cache {} differ", dims_str(kc), dims_str(b.tensor(VC).dims));
  b.check(q[1] == k[1] && q[3] == k[3], "q {} and k {} must agree in R and D", dims_str(q), dims_str(k));
  b.check(k[2] > 0 && q[2] % k[2] == 0, "query heads {} must be a multiple of kv heads {}", q[2], k[2]);
  b.check(q[3] > 0 && q[3] <= 256, "head dim {} must be in 1..256", q[3]);
  b.check(kc[0] >= 1 && kc[2] == k[2] && kc[3] == k[3], "cache {} must be [N, C_max, Hkv, D] for k {}", dims_str(kc),
          dims_str(k));
  b.check(b.tensor(SLOTS).dims == Dims{q[1]} && b.tensor(POS).dims == Dims{q[1]}, "slots {} and pos {} must be [R = {}]",
          dims_str(b.tensor(SLOTS).dims), dims_str(b.tensor(POS).dims), q[1]);
  const float scale = b.is_none(SCALE) ? float(1.0 / std::sqrt(double(q[3]))) : float(b.real_arg(SCALE));
  const int64_t c_max = kc[1], nslots = kc[0];

  const uint64_t score_bytes = uint64_t(q[1]) * uint64_t(q[2]) * uint64_t(c_max) * 4;
  const uint64_t limit = b.device().limits().maxStorageBufferBindingSize;
  if (score_bytes > limit)
    throw LimitError(b.where() + fmt::format("attention scores for {} query rows x {} keys need {} bytes, beyond "
                                             "maxStorageBufferBindingSize {}", q[1] * q[2], c_max, score_bytes, limit));
  ScratchRef scores = b.scratch(score_bytes, "attention scores");
  UniformRef params = b.uniform<BatchedSdpaParams>();
  auto t = [&](size_t i) { return Binding::tensor(b.arg(i)); };
  DispatchRef write = b.dispatch({"ops/attention/sdpa_batched_write.wgsl", "main", {}, {}, kv},
                                 {t(K), t(V), t(SLOTS), t(POS), t(KC), t(VC), params});
  DispatchRef attend = b.dispatch({"ops/attention/sdpa_batched.wgsl", "main", {}, {}, kv},
                                  {t(Q), t(KC), t(VC), t(SLOTS), t(POS), scores, t(OUT), params}, kRouteScores);
  // The decode route. Partials: the split rule keeps R * nsplit * Hkv * blocks <= the target where it splits,
  // so R * nsplit <= target / (Hkv * blocks) rows of splits (at build's policy; execute clamps to what was sized).
  const int64_t G = q[2] / k[2], D = q[3], rows_max = q[1];
  const bool decode_ok = !ext && D % 4 == 0;
  const int64_t heads = std::min<int64_t>(G, kDecodeMaxHeads), blocks = int64_t(div_up(uint64_t(G), uint64_t(heads)));
  const uint64_t split_row_bytes = uint64_t(q[2]) * uint64_t(D + 4) * 4;  // one row's Hq partials of one split
  const int64_t split_rows = std::min<int64_t>(
      rows_max * kMaxKeySplits, b.device().tuning().sdpa_split_target_workgroups / std::max<int64_t>(k[2] * blocks, 1));
  const uint64_t part_bytes = decode_ok ? std::min<uint64_t>(uint64_t(std::max<int64_t>(split_rows, 0)) * split_row_bytes, limit) : 0;
  DispatchRef decode{}, merge{};
  ScratchRef partials{};
  if (decode_ok) {
    partials = b.scratch(std::max<uint64_t>(part_bytes, 16), "split-KV partials");
    const std::string dec = "ops/attention/sdpa_batched_decode.wgsl";
    decode = b.dispatch({dec, "main", {{"HB", double(heads)}, {"D4", double(D / 4)}}, {}, kv},
                        {t(Q), t(KC), t(VC), t(SLOTS), t(POS), partials, t(OUT), params}, kRouteDecode);
    merge = b.dispatch({dec, "combine", {{"COMBINE_LOOP", double(b.device().tuning().sdpa_combine_loop_splits)}}, {}, kv},
                       {t(Q), t(KC), t(VC), t(SLOTS), t(POS), partials, t(OUT), params}, kRouteDecode);
  }

  b.on_resize([=](ResizeContext& r) {
    const Dims q = r.tensor(Q).dims, k = r.tensor(K).dims;
    if (q[1] != k[1] || k != r.tensor(V).dims || r.tensor(SLOTS).dims != Dims{q[1]} || r.tensor(POS).dims != Dims{q[1]})
      r.fail("live q {}, k {}, v {}, slots {}, pos {} must agree in R", dims_str(q), dims_str(k), dims_str(r.tensor(V).dims),
             dims_str(r.tensor(SLOTS).dims), dims_str(r.tensor(POS).dims));
    // The host copies of slots/pos (graph inputs): a bad row is an error before anything is written.
    std::span<const int32_t> sl = r.input_host_i32(SLOTS), ps = r.input_host_i32(POS);
    int64_t ctx = 1;  // the step's longest row: max(pos) + 1 keys
    for (size_t i = 0; i < sl.size() && i < ps.size() && int64_t(i) < q[1]; ++i) {
      if (sl[i] < 0 || sl[i] >= nslots || ps[i] < 0 || ps[i] >= c_max)
        throw LimitError(r.where() + fmt::format("row {} has slot {} (of {}) and position {} (context {})", i, sl[i], nslots,
                                                 ps[i], c_max));
      ctx = std::max<int64_t>(ctx, int64_t(ps[i]) + 1);
    }
    r.set_dims(OUT, q);
    BatchedSdpaParams p{};
    p.rows = uint32_t(q[1]);
    p.hq = uint32_t(q[2]);
    p.hkv = uint32_t(k[2]);
    p.d = uint32_t(q[3]);
    p.c_max = uint32_t(c_max);
    p.nslots = uint32_t(nslots);
    p.scale = scale;
    p.window = uint32_t(window);
    p.softcap = float(softcap);
    const webgpu::Tuning& tu = r.tuning();
    const bool use_decode = decode_ok && q[1] <= tu.sdpa_batched_decode_rows;
    KeySplit ks{1, ctx};
    if (use_decode) {
      const int64_t base = q[1] * k[2] * blocks;
      const int64_t fit = int64_t(part_bytes / (uint64_t(std::max<int64_t>(q[1], 1)) * split_row_bytes));  // splits it holds
      ks = decode_key_split(tu, base, ctx, fit);
    }
    p.chunk = uint32_t(ks.chunk);
    p.nsplit = uint32_t(ks.nsplit);
    p.blocks = uint32_t(blocks);
    r.set_uniform(params, p);
    r.select_route(use_decode ? kRouteDecode : kRouteScores);
    r.set_invocations(write, uint64_t(p.rows) * p.hkv * p.d / per_word, 2);
    r.set_workgroups(attend, use_decode ? 0 : uint64_t(p.rows) * p.hq);
    if (decode_ok) {
      r.set_workgroups(decode, use_decode ? uint64_t(q[1] * k[2] * blocks * ks.nsplit) : 0);
      r.set_workgroups(merge, use_decode && ks.nsplit > 1 ? uint64_t(p.rows) * p.hq : 0);
    }
  });
}

}  // namespace

void register_sdpa_batched_ops(OpRegistry& r) {
  const std::vector<std::string> kernels = {"ops/attention/sdpa_batched_write.wgsl:main", "ops/attention/sdpa_batched.wgsl:main",
                                            "ops/attention/sdpa_batched_decode.wgsl:main",
                                            "ops/attention/sdpa_batched_decode.wgsl:combine"};
  r.add({"wgrt.sdpa_batched.default", [](OpBuilder& b) { build_sdpa_batched(b, false); }, kernels, true});
  r.add({"wgrt.sdpa_batched_swa.default", [](OpBuilder& b) { build_sdpa_batched(b, true); }, kernels, true});
}

}  // namespace wgrt::ops
