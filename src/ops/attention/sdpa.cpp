// llama.sdpa_with_kv_cache.default(q [B,S,Hq,D], k [B,S,Hkv,D], v [B,S,Hkv,D], k_cache [B,C_max,Hkv,D],
//     v_cache [B,C_max,Hkv,D], input_pos (Int|SymInt), seq_len (Int|SymInt|None, must equal S), mask (None only),
//     dropout_p (0.0 only), is_causal (bool), scale (double|None: 1/sqrt(D)), out [B,S,Hq,D])
// Fused (ExecuTorch extension/llm/custom_ops semantics):
//   (a) k, v rows are written into the caches at rows [input_pos, input_pos + S) (the caches are State tensors);
//   (b) scores = q·kᵀ·scale over the live context [0, input_pos + S); causal: query s sees keys <= input_pos + s;
//   (c) row softmax; (d) out = P·V.
// wgrt.sdpa_with_kv_cache_swa.default(the same 11 arguments, softcap (double, 0: none), window (int, 0: none), out)
//   as above, with Gemma's options (llama.cpp build_attn_mha): scores s = (q·scale)·k become softcap*tanh(s/softcap)
//   before the softmax, and query s (position input_pos + s) sees only keys t with input_pos + s - t < window.
// GQA: Hq must be a multiple of Hkv; query head h reads kv head h / (Hq/Hkv). f32, D <= 256.
// Routes: 0 general (one workgroup per query row; scores in pooled scratch [B*S*Hq, C_max]);
//         1 split-KV for S == 1 and input_pos + 1 >= the tuning policy's sdpa_split_min_context (read at
//           every execute, webgpu/tuning.h): partials of the kernel's WG_KEYS keys each (online-softmax (max, sum, acc) in scratch), then a combine dispatch.
// Errors: shape/dtype/argument problems at build (InvalidArgument; masks and dropout are Unsupported); the
// scores scratch beyond maxStorageBufferBindingSize is a LimitError at build; input_pos < 0 or
// input_pos + S > C_max a LimitError at execute (nothing is written, the graph stays usable).

#include <cmath>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/kv_cache/kv_cache.h"
#include "webgpu/device.h"

namespace wgrt::ops {

namespace {

struct SdpaParams {
  uint32_t rows, seq, hq, hkv, d, pos, c_max, causal;
  float scale;
  uint32_t chunk, nchunks, window;
  float softcap;
  uint32_t pad0, pad1, pad2;
};
WGRT_UNIFORM(SdpaParams, rows, seq, hq, hkv, d, pos, c_max, causal, scale, chunk, nchunks, window, softcap, pad0, pad1,
             pad2);

enum Arg : size_t { Q, K, V, KC, VC, POS, SEQ_LEN, MASK, DROPOUT, CAUSAL, SCALE, NARGS };
enum ExtArg : size_t { SOFTCAP = NARGS, WINDOW };

// ext: the _swa variant (softcap and window before out).
void build_sdpa(OpBuilder& b, bool ext) {
  const size_t OUT = ext ? WINDOW + 1 : NARGS;
  b.check_args(OUT + 1);
  const double softcap = ext ? b.real_arg(SOFTCAP) : 0.0;
  const int64_t window = ext ? b.int_arg(WINDOW) : 0;
  b.check(std::isfinite(softcap) && softcap >= 0, "softcap {} must be finite and >= 0", softcap);
  b.check(window >= 0 && window <= (int64_t(1) << 30), "window {} must be in 0..2^30", window);
  for (size_t i : {Q, K, V, KC, VC}) {
    b.check_dtype(i, DType::F32);
    b.check_rank(i, 4, 4);
  }
  b.check_dtype(OUT, DType::F32);
  const Dims& q = b.tensor(Q).dims;
  const Dims& k = b.tensor(K).dims;
  const Dims& kc = b.tensor(KC).dims;
  b.check(k == b.tensor(V).dims, "k {} and v {} differ", dims_str(k), dims_str(b.tensor(V).dims));
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

  // Scratch: scores [B*S_max*Hq, C_max]; split partials [B*Hq, ceil(C_max/chunk), D+2].
  const uint64_t score_bytes = uint64_t(q[0]) * uint64_t(q[1]) * uint64_t(q[2]) * uint64_t(c_max) * 4;
  const uint64_t limit = b.device().limits().maxStorageBufferBindingSize;
  if (score_bytes > limit)
    throw LimitError(b.where() + fmt::format("attention scores for {} queries x {} keys need {} bytes, beyond "
                                             "maxStorageBufferBindingSize {}", q[0] * q[1] * q[2], c_max, score_bytes, limit));
  const webgpu::KernelSpec part_spec{"ops/attention/sdpa_split.wgsl", "partial", {}, {}};
  const uint64_t split_chunk = webgpu::PipelineCache::value(part_spec, "WG_KEYS");  // keys per split-KV chunk
  const uint64_t max_chunks = div_up(uint64_t(c_max), split_chunk);
  const uint64_t part_bytes = uint64_t(q[0]) * uint64_t(q[2]) * max_chunks * uint64_t(q[3] + 2) * 4;
  ScratchRef scores = b.scratch(score_bytes, "attention scores");
  ScratchRef partials = b.scratch(part_bytes, "split-KV partials");

  CacheWrite wkv = declare_kv_cache_write(b, K, V, KC, VC);
  UniformRef params = b.uniform<SdpaParams>();
  auto t = [&](size_t i) { return Binding::tensor(b.arg(i)); };
  DispatchRef general = b.dispatch({"ops/attention/sdpa.wgsl", "main", {}, {}}, {t(Q), t(KC), t(VC), scores, t(OUT), params}, 0);
  DispatchRef part = b.dispatch(part_spec, {t(Q), t(KC), t(VC), partials, t(OUT), params}, 1);
  DispatchRef combine = b.dispatch({"ops/attention/sdpa_split.wgsl", "combine", {}, {}}, {t(Q), t(KC), t(VC), partials, t(OUT), params}, 1);

  b.on_resize([=](ResizeContext& r) {
    const Dims q = r.tensor(Q).dims, k = r.tensor(K).dims;
    if (q[0] != k[0] || q[1] != k[1] || q[3] != k[3] || k != r.tensor(V).dims)
      r.fail("live q {}, k {}, v {} must agree in B, S and D", dims_str(q), dims_str(k), dims_str(r.tensor(V).dims));
    if (k[2] == 0 || q[2] % k[2] != 0) r.fail("query heads {} must be a multiple of kv heads {}", q[2], k[2]);
    if (seq_len_given && r.int_arg(SEQ_LEN) != q[1]) r.fail("seq_len {} differs from the query length {}", r.int_arg(SEQ_LEN), q[1]);
    const int64_t pos = r.int_arg(POS);
    // Checks 0 <= pos and pos + S <= C_max (LimitError) before anything else is set.
    resize_kv_cache_write(r, wkv, K, V, KC, VC, pos);
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
    p.window = uint32_t(window);
    p.softcap = float(softcap);
    const int64_t ctx = pos + q[1];
    const bool split = q[1] == 1 && ctx >= r.tuning().sdpa_split_min_context;
    p.chunk = uint32_t(split_chunk);
    p.nchunks = split ? uint32_t(div_up(uint64_t(ctx), split_chunk)) : 1u;
    r.set_uniform(params, p);
    r.select_route(split ? 1 : 0);
    r.set_workgroups(general, split ? 0 : p.rows);
    r.set_workgroups(part, split ? uint64_t(p.rows) * p.nchunks : 0);
    r.set_workgroups(combine, split ? p.rows : 0);
  });
}

}  // namespace

void register_attention_ops(OpRegistry& r) {
  const std::vector<std::string> kernels = {"ops/kv_cache/update_kv_cache.wgsl:main", "ops/attention/sdpa.wgsl:main",
                                            "ops/attention/sdpa_split.wgsl:partial", "ops/attention/sdpa_split.wgsl:combine"};
  r.add({"llama.sdpa_with_kv_cache.default", [](OpBuilder& b) { build_sdpa(b, false); }, kernels, true});
  r.add({"wgrt.sdpa_with_kv_cache_swa.default", [](OpBuilder& b) { build_sdpa(b, true); }, kernels, true});
}

}  // namespace wgrt::ops
