// llama.sdpa_with_kv_cache.default(q [B,S,Hq,D], k [B,S,Hkv,D], v [B,S,Hkv,D], k_cache [B,C_max,Hkv,D],
//     v_cache [B,C_max,Hkv,D], input_pos (Int|SymInt), seq_len (Int|SymInt|None, must equal S), mask (None only),
//     dropout_p (0.0 only), is_causal (bool), scale (double|None: 1/sqrt(D)), out [B,S,Hq,D])
// Fused (ExecuTorch extension/llm/custom_ops semantics):
//   (a) k, v rows are written into the caches at rows [input_pos, input_pos + S) (the caches are State tensors);
//       k and v both None: the caches already hold those rows (wgrt.rope_qkv_cache wrote them), no write;
//   (b) scores = q·kᵀ·scale over the live context [0, input_pos + S); causal: query s sees keys <= input_pos + s;
//   (c) row softmax; (d) out = P·V.
// wgrt.sdpa_with_kv_cache_swa.default(the same 11 arguments, softcap (double, 0: none), window (int, 0: none), out)
//   as above, with Gemma's options (llama.cpp build_attn_mha): scores s = (q·scale)·k become softcap*tanh(s/softcap)
//   before the softmax, and query s (position input_pos + s) sees only keys t with input_pos + s - t < window.
//   It always takes the legacy route (the flash kernels have neither option yet), so its score scratch must fit
//   one binding (LimitError at build naming the fix otherwise).
// GQA: Hq must be a multiple of Hkv; query head h reads kv head h / (Hq/Hkv). f32, D <= 256; the caches f32 or f16
// (kv_f16.wgsl: D % 4 == 0; every kernel below is built for the caches' dtype, kv_cache.h kv_prelude).
// Routes (plan_flash below, from the tuning policy at every execute):
//   wide / narrow flash attention (sdpa_flash.wgsl): online softmax over key tiles, no score buffer; the G
//     query heads of a kv head share its K/V loads; decode splits the keys across workgroups (split-KV) and
//     merges the partials in a combine dispatch;
//   prefill (sdpa_flash_prefill.wgsl, tuning sdpa_prefill_rpt): register-blocked flash attention for S > 1,
//     D % 4 == 0, D <= sdpa_prefill_max_d (<= 128), blocks of 16 * rpt query rows (fewer where its workgroup
//     memory would not fit); replaces the wide route there; its keys split across
//     workgroups (tuning sdpa_prefill_split_*) where the blocks are too few, merged by its combine dispatch;
//   decode (sdpa_decode.wgsl, S == 1, D % 4 == 0, tuning sdpa_decode_kernel): min(G, 8) query heads of one kv
//     head per workgroup over one key chunk (K/V rows read once, as vec4), keys split by the same rule from the
//     live context input_pos + 1; its combine dispatch runs only when the keys are split;
//   legacy (sdpa.wgsl, tuning sdpa_legacy): one workgroup per query row, scores in scratch [B*S*Hq, C_max]; built
//     only where asked and where that scratch fits one binding.
// Errors: shape/dtype/argument problems at build (InvalidArgument; masks and dropout are Unsupported);
// input_pos < 0 or input_pos + S > C_max a LimitError at execute (nothing is written, the graph stays usable).

#include <fmt/format.h>

#include <cmath>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/attention/attn_options.h"
#include "ops/attention/key_split.h"
#include "ops/families.h"
#include "ops/kv_cache/kv_cache.h"
#include "webgpu/device.h"
#include "wgrt/error.h"

namespace wgrt::ops {

namespace {

// sdpa_flash_common.wgsl's Params (sdpa_flash.wgsl, sdpa_flash_prefill.wgsl).
struct SdpaParams {
  uint32_t rows, seq, hq, hkv, d, pos, c_max, causal;
  float scale;
  uint32_t chunk, nchunks, blocks;
};
WGRT_UNIFORM(SdpaParams, rows, seq, hq, hkv, d, pos, c_max, causal, scale, chunk, nchunks, blocks);

// sdpa_decode.wgsl's Params.
struct SdpaDecodeParams {
  uint32_t batches, hq, hkv, d4, ctx, c_max, chunk, nsplit, blocks;
  float scale;
  uint32_t pad0, pad1;
};
WGRT_UNIFORM(SdpaDecodeParams, batches, hq, hkv, d4, ctx, c_max, chunk, nsplit, blocks, scale, pad0, pad1);

// sdpa_common.wgsl's Params (the legacy kernel sdpa.wgsl), with gemma's window and soft cap.
struct SdpaLegacyParams {
  uint32_t rows, seq, hq, hkv, d, pos, c_max, causal;
  float scale;
  uint32_t chunk, nchunks, window;
  float softcap;
  uint32_t pad0, pad1, pad2;
};
WGRT_UNIFORM(SdpaLegacyParams, rows, seq, hq, hkv, d, pos, c_max, causal, scale, chunk, nchunks, window, softcap, pad0,
             pad1, pad2);

constexpr int kRouteWide = 0, kRouteNarrow = 1, kRouteSplit = 2, kRouteLegacy = 3;  // split: narrow + combine
constexpr int kRouteDecode = 4;      // sdpa_decode.wgsl main (+ its combine when nsplit > 1)
constexpr int kRoutePrefill = 5;     // sdpa_flash_prefill.wgsl main
constexpr int64_t kDecodeMaxHeads = 8;  // sdpa_decode.wgsl HB bound (query heads per workgroup)
constexpr int64_t kWideMaxD = 128;   // the wide kernel stages 16 q rows of up to 128 floats
constexpr int64_t kWideRows = 16, kNarrowRows = 4;  // query rows per workgroup (sdpa_flash.wgsl RB)
constexpr int64_t kPrefillMaxSplits = 8;  // key splits per prefill row (partials scratch bound)
constexpr int64_t kPrefillTile = 32;      // sdpa_flash_prefill.wgsl BC: a split's keys are whole tiles
constexpr int64_t kPrefillCombineRows = 4;  // sdpa_flash_prefill.wgsl combine CR
constexpr int64_t kPrefillMaxD = 128;       // sdpa_flash_prefill.wgsl D4 <= 32

// sdpa_flash_prefill.wgsl's workgroup memory at rpt rows per invocation (BR = 16 * rpt) and head dim D: Qs
// [BR][D/4 + 1], the K / p tile [32][max(D/4 + 1, 17)], with vtile the V tile [32][D/4] (vec4), Mx [BR][8] f32.
uint64_t prefill_workgroup_bytes(uint64_t rpt, int64_t D, bool vtile) {
  const uint64_t br = 16 * rpt, qst = uint64_t(D / 4 + 1);
  return 16 * (br * qst + 32 * std::max<uint64_t>(qst, 17) + (vtile ? 32 * uint64_t(D / 4) : 0)) + 4 * br * 8;
}

// sdpa_decode_sg.wgsl's shape (0 lanes: it does not apply). Lanes per key: the policy's (sdpa_decode_lanes), at
// most the adapter's smallest subgroup, halved until they divide D/4. Keys per lane per step: up to 8, at most a
// group's share of the smallest split chunk, within its register arrays (HB * VPL <= 16 q / acc vec4; U * VPL <=
// 16 K and V loads of an f16 cache, 8 of an f32 one; U * HB <= 32 scores). Its workgroup memory holds
// (128 / smallest subgroup) subgroup states of HB * D/4 vec4 (<= 1024) and HB (m, l) pairs (<= 256).
struct DecodeSgShape {
  uint32_t lanes = 0, keys = 0;
};
DecodeSgShape decode_sg_shape(const webgpu::Tuning& tu, const webgpu::DeviceFacts& f, int64_t heads, int64_t D,
                              bool f16_cache) {
  if (tu.sdpa_decode_lanes == 0 || !f.subgroups || f.subgroup_min == 0 || f.subgroup_min > 128 || D % 4 != 0) return {};
  const int64_t d4 = D / 4;
  int64_t lanes = std::min<int64_t>(tu.sdpa_decode_lanes, f.subgroup_min);
  while (lanes > 1 && d4 % lanes != 0) lanes /= 2;
  const int64_t vpl = d4 / lanes, subgroups = 128 / int64_t(f.subgroup_min);
  if (heads * vpl > 16 || subgroups * heads * d4 > 1024 || subgroups * heads > 256) return {};
  // A split's chunk (a multiple of sdpa_split_min_chunk keys) spread over the 128 / lanes key groups: no more keys
  // per step than a group has in the smallest chunk.
  const int64_t per_group = std::max<int64_t>(tu.sdpa_split_min_chunk / (128 / lanes), 1);
  const int64_t keys = std::min<int64_t>({8, (f16_cache ? 16 : 8) / vpl, 32 / heads, per_group});
  if (keys < 1) return {};
  return {uint32_t(lanes), uint32_t(keys)};
}

struct FlashPlan {
  int route;
  int64_t blocks, nsplit, chunk, workgroups;
};

// The route rule (tuning policy entries sdpa_*): legacy only where asked; narrow blocks where a kv head has
// few query rows (decode: S*G <= sdpa_narrow_max_rows) or D > 128, else wide. Decode (S == 1) from
// sdpa_split_min_context keys splits the keys into chunks of >= sdpa_split_min_chunk keys, enough for about
// sdpa_split_target_workgroups workgroups (key_split.h, at most 64 splits; split decode runs on the narrow kernel).
// Decode with D % 4 == 0 (decode_ok) and tuning sdpa_decode_kernel takes sdpa_decode.wgsl instead: blocks of
// min(G, 8) query heads, the same split rule, its combine only when nsplit > 1.
// Prefill (S > 1) where the wide route would run takes the register-blocked kernel when it was built
// (prefill_rows: its rows per block, 0 = not built) and the policy keeps it on (sdpa_prefill_rpt > 0). Where its
// B*Hkv*blocks workgroups are below sdpa_prefill_split_target_workgroups, its keys split into about target/base
// chunks of >= sdpa_prefill_split_min_chunk keys (whole 32-key tiles, at most prefill_splits, the scratch bound
// from build; 0/1: no split).
FlashPlan plan_flash(const webgpu::Tuning& tu, int64_t B, int64_t S, int64_t Hq, int64_t Hkv, int64_t D, int64_t ctx,
                     bool wide_ok, bool legacy_ok, bool decode_ok, int64_t decode_heads,
                     int64_t prefill_rows, int64_t prefill_splits) {
  FlashPlan f{};
  if (legacy_ok && tu.sdpa_legacy) return {kRouteLegacy, 0, 1, ctx, 0};
  const int64_t rows_per_head = S * (Hq / Hkv);
  if (prefill_rows > 0 && tu.sdpa_prefill_rpt > 0 && S > 1 && rows_per_head > tu.sdpa_narrow_max_rows) {
    const int64_t blocks = int64_t(div_up(uint64_t(rows_per_head), uint64_t(prefill_rows)));
    const int64_t base = B * Hkv * blocks;
    const int64_t target = tu.sdpa_prefill_split_target_workgroups;
    int64_t n = 1, chunk = ctx;
    if (prefill_splits > 1 && target > base) {
      const int64_t min_chunk = std::max<int64_t>(tu.sdpa_prefill_split_min_chunk, 1);
      n = std::min<int64_t>({target / base, int64_t(div_up(uint64_t(ctx), uint64_t(min_chunk))), prefill_splits});
      n = std::max<int64_t>(n, 1);
      chunk = int64_t(div_up(div_up(uint64_t(ctx), uint64_t(n)), uint64_t(kPrefillTile))) * kPrefillTile;
      n = int64_t(div_up(uint64_t(ctx), uint64_t(chunk)));
    }
    return {kRoutePrefill, blocks, n, chunk, base * n};
  }
  const bool split = S == 1 && ctx >= tu.sdpa_split_min_context;
  const bool decode = S == 1 && decode_ok && tu.sdpa_decode_kernel;
  f.route = decode ? kRouteDecode
                   : wide_ok && !split && rows_per_head > tu.sdpa_narrow_max_rows ? kRouteWide : kRouteNarrow;
  const int64_t block_rows = decode ? decode_heads : f.route == kRouteWide ? kWideRows : kNarrowRows;
  f.blocks = int64_t(div_up(uint64_t(rows_per_head), uint64_t(block_rows)));
  const int64_t base = B * Hkv * f.blocks;
  f.nsplit = 1;
  f.chunk = ctx;
  if (split) {
    const KeySplit ks = decode_key_split(tu, base, ctx, kMaxKeySplits);
    f.chunk = ks.chunk;
    f.nsplit = ks.nsplit;
    if (f.nsplit > 1 && !decode) f.route = kRouteSplit;
  }
  f.workgroups = base * f.nsplit;
  return f;
}

enum Arg : size_t { Q, K, V, KC, VC, POS, SEQ_LEN, MASK, DROPOUT, CAUSAL, SCALE, NARGS };
enum ExtArg : size_t { SOFTCAP = NARGS, WINDOW };

// ext: the _swa variant (softcap and window before out).
void build_sdpa(OpBuilder& b, bool ext) {
  const size_t OUT = ext ? WINDOW + 1 : NARGS;
  b.check_args(OUT + 1);
  const AttnOptions opt = read_attn_options(b, SOFTCAP, ext);  // (no structured binding: lambdas capture these)
  const double softcap = opt.softcap;
  const int64_t window = opt.window;
  const bool written = b.is_none(K);  // the caches already hold this step's rows
  b.check(written == b.is_none(V), "k and v must both be tensors or both None");
  for (size_t i : {Q, K, V, KC, VC}) {
    if (written && (i == K || i == V)) continue;
    if (i != KC && i != VC) b.check_dtype(i, DType::F32);
    b.check_rank(i, 4, 4);
  }
  const DType kv_dtype = check_kv_cache_dtype(b, KC, VC);
  const std::vector<std::string> kv = kv_prelude(kv_dtype);
  b.check_dtype(OUT, DType::F32);
  const Dims& q = b.tensor(Q).dims;
  const Dims& kc = b.tensor(KC).dims;
  const Dims k = written ? Dims{q[0], q[1], kc[2], kc[3]} : b.tensor(K).dims;  // a copy (None: from q and the cache)
  b.check(written || k == b.tensor(V).dims, "k {} and v {} differ", dims_str(k), written ? "" : dims_str(b.tensor(V).dims));
  b.check(kc == b.tensor(VC).dims, "k_cache {} and v_cache {} differ", dims_str(kc), dims_str(b.tensor(VC).dims));
  b.check(q[0] == k[0] && q[1] == k[1] && q[3] == k[3], "q {} and k {} must agree in B, S and D", dims_str(q), dims_str(k));
  b.check(k[2] > 0 && q[2] % k[2] == 0, "query heads {} must be a multiple of kv heads {}", q[2], k[2]);
  b.check(q[3] > 0 && q[3] <= 256, "head dim {} must be in 1..256", q[3]);
  b.check(kc[0] == k[0] && kc[2] == k[2] && kc[3] == k[3], "cache {} must be [B, C_max, Hkv, D] for k {}", dims_str(kc), dims_str(k));
  b.int_arg(POS);
  if (!b.is_none(SEQ_LEN)) b.int_arg(SEQ_LEN);
  if (!b.is_none(MASK)) throw Unsupported(b.where() + "attention masks are not supported (pass None and is_causal)");
  b.check(b.real_arg(DROPOUT) == 0.0, "dropout_p must be 0.0, got {}", b.real_arg(DROPOUT));
  const bool causal = b.bool_arg(CAUSAL);
  const float scale = b.is_none(SCALE) ? float(1.0 / std::sqrt(double(q[3]))) : float(b.real_arg(SCALE));
  const int64_t c_max = kc[1];
  const bool seq_len_given = !b.is_none(SEQ_LEN);

    // Flash routes (sdpa_flash.wgsl): "wide" blocks of 16 query rows (D <= 128) and "narrow" blocks of 4 rows,
  // each optionally split along the keys (decode) with a combine dispatch. The legacy route (sdpa.wgsl, scores
  // in scratch [B*S*Hq, C_max]) is built only where the tuning policy asks for it and its scratch fits.
  const int64_t D = q[3];
  const uint64_t max_rows_split = uint64_t(q[0]) * uint64_t(q[2]);  // decode (S == 1) rows
  // (D + 2) floats per split for sdpa_flash.wgsl, (D + 4) for sdpa_decode.wgsl (vec4 acc, vec4 (m, l)).
  const uint64_t part_bytes = max_rows_split * uint64_t(kMaxKeySplits) * uint64_t(D + 4) * 4;
  const uint64_t score_bytes = uint64_t(q[0]) * uint64_t(q[1]) * uint64_t(q[2]) * uint64_t(c_max) * 4;
  const uint64_t max_binding = b.device().limits().maxStorageBufferBindingSize;
  // The prefill kernel (its rows per block fixed at build, an override constant, from the policy then) and its
  // key splits (partials [B*S*Hq][splits][D/4 + 1] vec4, in the same scratch as decode's), built only where the
  // policy splits then, at most what one binding holds.
  const webgpu::Tuning& build_tu = b.device().tuning();
  // Rows per invocation: the policy's, halved until the workgroup memory (without the V tile) fits.
  const uint64_t wg_limit = b.device().limits().maxComputeWorkgroupStorageSize;
  uint32_t prefill_rpt = build_tu.sdpa_prefill_rpt;
  while (prefill_rpt > 1 && prefill_workgroup_bytes(prefill_rpt, D, false) > wg_limit) prefill_rpt /= 2;
  const bool prefill_ok = !ext && D % 4 == 0 && D <= std::min(build_tu.sdpa_prefill_max_d, kPrefillMaxD) &&
                          prefill_rpt > 0 && prefill_workgroup_bytes(prefill_rpt, D, false) <= wg_limit;
  const int64_t prefill_rows = prefill_ok ? 16 * int64_t(prefill_rpt) : 0;
  const uint64_t prefill_split_bytes = uint64_t(q[0]) * uint64_t(q[1]) * uint64_t(q[2]) * uint64_t(D / 4 + 1) * 16;
  const int64_t prefill_splits =
      prefill_ok && build_tu.sdpa_prefill_split_target_workgroups > 0
          ? std::min<int64_t>(kPrefillMaxSplits, int64_t(max_binding / std::max<uint64_t>(prefill_split_bytes, 1)))
          : 0;
  const uint64_t split_bytes = std::max(part_bytes, prefill_splits > 1 ? prefill_split_bytes * uint64_t(prefill_splits) : 0);
  ScratchRef partials = b.scratch(split_bytes, "split-KV partials");
  if (ext && score_bytes > max_binding)
    throw LimitError(b.where() + fmt::format("soft-capped / sliding-window attention needs a score scratch of {} bytes, "
                                             "above this adapter's binding limit of {} bytes: use a smaller --ctx or "
                                             "--prefill-chunk", score_bytes, max_binding));
  const bool legacy_ok = (ext || b.device().tuning().sdpa_legacy) && score_bytes <= max_binding;

  const CacheWrite wkv = written ? CacheWrite{} : declare_kv_cache_write(b, K, V, KC, VC);
  UniformRef params = b.uniform<SdpaParams>();
  UniformRef legacy_params = legacy_ok ? b.uniform<SdpaLegacyParams>() : UniformRef{};
  auto t = [&](size_t i) { return Binding::tensor(b.arg(i)); };
  const std::string flash = "ops/attention/sdpa_flash.wgsl";
  const bool wide_ok = D <= kWideMaxD;
  DispatchRef wide{}, general{};
  DispatchRef prefill{}, prefill_merge{};
  if (prefill_ok) {
    const std::string pre = "ops/attention/sdpa_flash_prefill.wgsl";
    // V tiles in workgroup memory where they fit too (within 32 KiB: 16- and 32-row blocks at D 64, not 64).
    const double vt = prefill_workgroup_bytes(prefill_rpt, D, true) <= wg_limit ? 1 : 0;
    prefill = b.dispatch({pre, "main", {{"RPT", double(prefill_rpt)}, {"D4", double(D / 4)}, {"VT", vt}}, {}, kv},
                         {t(Q), t(KC), t(VC), partials, t(OUT), params}, kRoutePrefill);
    prefill_merge = b.dispatch({pre, "combine", {{"D4", double(D / 4)}}, {}, kv}, {t(Q), t(KC), t(VC), partials, t(OUT), params},
                               kRoutePrefill);
  }
  if (wide_ok)
    wide = b.dispatch({flash, "main", {{"DT", 16}, {"DPT_MAX", 8}}, {}, kv}, {t(Q), t(KC), t(VC), partials, t(OUT), params}, kRouteWide);
  const webgpu::KernelSpec narrow_spec{flash, "main", {{"DT", 64}, {"DPT_MAX", 4}}, {}, kv};
  DispatchRef narrow = b.dispatch(narrow_spec, {t(Q), t(KC), t(VC), partials, t(OUT), params}, kRouteNarrow);
  DispatchRef split = b.dispatch(narrow_spec, {t(Q), t(KC), t(VC), partials, t(OUT), params}, kRouteSplit);
  DispatchRef combine = b.dispatch({flash, "combine", {}, {}, kv}, {t(Q), t(KC), t(VC), partials, t(OUT), params}, kRouteSplit);
  // Decode route (sdpa_decode.wgsl): vec4 K/V rows, HB = min(G, 8) query heads per workgroup.
  const bool decode_ok = !ext && D % 4 == 0;
  const int64_t decode_heads = std::min<int64_t>(q[2] / k[2], kDecodeMaxHeads);
  UniformRef decode_params{};
  DispatchRef decode_main{}, decode_merge{}, decode_sg{};
  if (decode_ok) {
    const std::string dec = "ops/attention/sdpa_decode.wgsl";
    decode_params = b.uniform<SdpaDecodeParams>();
    decode_main = b.dispatch({dec, "main", {{"HB", double(decode_heads)}, {"D4", double(D / 4)}}, {}, kv},
                             {t(Q), t(KC), t(VC), partials, t(OUT), decode_params}, kRouteDecode);
    // The subgroup kernel (sdpa_decode_sg.wgsl) where the policy asks for it at build and its shape rule holds;
    // the resize hook runs it instead of decode_main while the policy keeps it on (before the combine).
    const DecodeSgShape sg = decode_sg_shape(build_tu, b.device().facts(), decode_heads, D, kv_dtype == DType::F16);
    if (sg.lanes > 0)
      decode_sg = b.dispatch({"ops/attention/sdpa_decode_sg.wgsl", "main",
                              {{"HB", double(decode_heads)},
                               {"D4", double(D / 4)},
                               {"DS", double(sg.lanes)},
                               {"U", double(sg.keys)}},
                              {},
                              kv},
                             {t(Q), t(KC), t(VC), partials, t(OUT), decode_params}, kRouteDecode);
    decode_merge = b.dispatch({dec, "combine", {{"COMBINE_LOOP", double(build_tu.sdpa_combine_loop_splits)}}, {}, kv},
                              {t(Q), t(KC), t(VC), partials, t(OUT), decode_params}, kRouteDecode);
  }
  if (legacy_ok) {
    ScratchRef scores = b.scratch(score_bytes, "attention scores");
    general = b.dispatch({"ops/attention/sdpa.wgsl", "main", {}, {}, kv}, {t(Q), t(KC), t(VC), scores, t(OUT), legacy_params}, kRouteLegacy);
  }

  b.on_resize([=](ResizeContext& r) {
    const Dims q = r.tensor(Q).dims, k = written ? Dims{q[0], q[1], kc[2], kc[3]} : r.tensor(K).dims;
    if (!written && (q[0] != k[0] || q[1] != k[1] || q[3] != k[3] || k != r.tensor(V).dims))
      r.fail("live q {}, k {}, v {} must agree in B, S and D", dims_str(q), dims_str(k), dims_str(r.tensor(V).dims));
    if (k[2] == 0 || q[2] % k[2] != 0) r.fail("query heads {} must be a multiple of kv heads {}", q[2], k[2]);
    if (seq_len_given && r.int_arg(SEQ_LEN) != q[1]) r.fail("seq_len {} differs from the query length {}", r.int_arg(SEQ_LEN), q[1]);
    const int64_t pos = r.int_arg(POS);
    // Checks 0 <= pos and pos + S <= C_max (LimitError) before anything else is set.
    if (!written) resize_kv_cache_write(r, wkv, K, V, KC, VC, pos);
    else if (pos < 0 || pos + q[1] > c_max)
      throw LimitError(r.where() + fmt::format("input_pos {} + {} tokens exceeds the cache context {}", pos, q[1], c_max));
    r.set_dims(OUT, q);
    SdpaParams p{};
    p.rows = uint32_t(q[0] * q[1] * q[2]);
    p.seq = uint32_t(std::max<int64_t>(q[1], 1));
    p.hq = uint32_t(q[2]);
    p.hkv = uint32_t(k[2]);
    p.d = uint32_t(q[3]);
    p.pos = uint32_t(pos);
    p.c_max = uint32_t(c_max);
    p.causal = causal ? 1u : 0u;
    p.scale = scale;
    const webgpu::Tuning& tu = r.tuning();
    const FlashPlan plan = ext ? FlashPlan{kRouteLegacy, 0, 1, pos + q[1], 0}
                               : plan_flash(tu, q[0], q[1], q[2], k[2], q[3], pos + q[1], wide_ok, legacy_ok, decode_ok,
                                            decode_heads, prefill_rows, prefill_splits);
    p.chunk = uint32_t(plan.chunk);
    p.nchunks = uint32_t(plan.nsplit);
    p.blocks = uint32_t(plan.blocks);
    r.set_uniform(params, p);
    if (legacy_ok) {
      SdpaLegacyParams lp{p.rows, p.seq, p.hq, p.hkv, p.d, p.pos, p.c_max, p.causal, p.scale, 0, 1,
                          uint32_t(window), float(softcap), 0, 0, 0};
      r.set_uniform(legacy_params, lp);
    }
    r.select_route(plan.route);
    if (prefill_ok) {
      const bool on = plan.route == kRoutePrefill;
      r.set_workgroups(prefill, on ? plan.workgroups : 0);
      r.set_workgroups(prefill_merge, on && plan.nsplit > 1 ? div_up(uint64_t(p.rows), uint64_t(kPrefillCombineRows)) : 0);
    }
    if (wide_ok) r.set_workgroups(wide, plan.route == kRouteWide ? plan.workgroups : 0);
    r.set_workgroups(narrow, plan.route == kRouteNarrow ? plan.workgroups : 0);
    r.set_workgroups(split, plan.route == kRouteSplit ? plan.workgroups : 0);
    r.set_workgroups(combine, plan.route == kRouteSplit ? p.rows : 0);
    if (legacy_ok) r.set_workgroups(general, plan.route == kRouteLegacy ? p.rows : 0);
    if (decode_ok) {
      const bool on = plan.route == kRouteDecode;
      SdpaDecodeParams dp{uint32_t(q[0]), p.hq, p.hkv, p.d / 4, uint32_t(pos + 1), p.c_max, p.chunk, p.nchunks,
                          p.blocks, scale, 0, 0};
      r.set_uniform(decode_params, dp);
      const bool sg_on = on && decode_sg.index >= 0 && tu.sdpa_decode_lanes > 0;
      r.set_workgroups(decode_main, on && !sg_on ? plan.workgroups : 0);
      if (decode_sg.index >= 0) r.set_workgroups(decode_sg, sg_on ? plan.workgroups : 0);
      r.set_workgroups(decode_merge, on && plan.nsplit > 1 ? uint64_t(q[0] * q[2]) : 0);
    }
  });
}

}  // namespace

void register_attention_ops(OpRegistry& r) {
  const std::vector<std::string> kernels = {"ops/kv_cache/update_kv_cache.wgsl:main", "ops/attention/sdpa_flash.wgsl:main",
                                            "ops/attention/sdpa_flash.wgsl:combine", "ops/attention/sdpa.wgsl:main",
                                            "ops/attention/sdpa_decode.wgsl:main", "ops/attention/sdpa_decode.wgsl:combine",
                                            "ops/attention/sdpa_decode_sg.wgsl:main",
                                            "ops/attention/sdpa_flash_prefill.wgsl:main",
                                            "ops/attention/sdpa_flash_prefill.wgsl:combine"};
  r.add({"llama.sdpa_with_kv_cache.default", [](OpBuilder& b) { build_sdpa(b, false); }, kernels, true});
  r.add({"wgrt.sdpa_with_kv_cache_swa.default", [](OpBuilder& b) { build_sdpa(b, true); }, kernels, true});
}

}  // namespace wgrt::ops
