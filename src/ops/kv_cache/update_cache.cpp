// llama.update_cache.default(value [B,S,H,D], cache [B,C_max,H,D], input_pos (Int|SymInt)): writes the S rows
// of value into the cache at rows [input_pos, input_pos + S), in place (the cache is a graph State tensor).
// value f32; the cache f32 or f16 (D % 4 == 0; kv_cache.h). input_pos < 0 or input_pos + S > C_max is a
// LimitError at execute (never a silent overwrite); the
// graph stays usable. Reference: ExecuTorch extension/llm/custom_ops update_cache.
#include <fmt/format.h>

#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/kv_cache/kv_cache.h"

namespace wgrt::ops {

namespace {

struct CacheParams {
  uint32_t n, row, seq, c_max, pos, pad0, pad1, pad2;
};
WGRT_UNIFORM(CacheParams, n, row, seq, c_max, pos, pad0, pad1, pad2);

void check_pair(OpBuilder& b, size_t value, size_t cache) {
  b.check_dtype(value, DType::F32);
  b.check_rank(value, 4, 4);
  b.check_rank(cache, 4, 4);
  const Dims& v = b.tensor(value).dims;
  const Dims& c = b.tensor(cache).dims;
  b.check(v[0] == c[0] && v[2] == c[2] && v[3] == c[3], "value {} and cache {} must agree in B, H and D", dims_str(v), dims_str(c));
}

void check_live(ResizeContext& r, size_t value, size_t cache, int64_t pos) {
  const TensorValue& vt = r.tensor(value);
  const TensorValue& ct = r.tensor(cache);
  const Dims& v = vt.dims;
  const Dims& c = ct.dims;
  if (v[0] != c[0] || v[2] != c[2] || v[3] != c[3])
    r.fail("value '{}' {} and cache '{}' {} must agree in B, H and D", vt.name, dims_str(v), ct.name, dims_str(c));
  if (pos < 0 || pos + v[1] > c[1])
    throw LimitError(r.where() + fmt::format("input_pos {} + {} tokens exceeds the cache '{}' context {}", pos, v[1], ct.name, c[1]));
}

// One invocation per cache word of `per_word` elements (kv_per_word).
void set_write(ResizeContext& r, const CacheWrite& w, const Dims& v, const Dims& c, int64_t pos, uint32_t layers,
               uint32_t per_word) {
  const CacheParams p{uint32_t(numel(v)), uint32_t(v[2] * v[3]), uint32_t(std::max<int64_t>(v[1], 1)), uint32_t(c[1]),
                      uint32_t(pos), 0, 0, 0};
  r.set_uniform(w.params, p);
  r.set_invocations(w.dispatch, (uint64_t(p.n) + per_word - 1) / per_word, layers);
}

}  // namespace

std::vector<std::string> kv_prelude(DType t) {
  switch (t) {
    case DType::F32: return {"ops/kv_cache/kv_f32.wgsl"};
    case DType::F16: return {"ops/kv_cache/kv_f16.wgsl"};
    default: throw InvalidArgument(fmt::format("a KV cache must be f32 or f16, not {}", dtype_name(t)));
  }
}

DType check_kv_cache_dtype(OpBuilder& b, size_t kc, size_t vc) {
  const TensorValue &k = b.tensor(kc), &v = b.tensor(vc);
  const DType t = k.dtype;
  b.check(t == DType::F32 || t == DType::F16, "cache '{}' must be f32 or f16, not {}", k.name, dtype_name(t));
  b.check(v.dtype == t, "caches '{}' ({}) and '{}' ({}) must have one dtype", k.name, dtype_name(t), v.name, dtype_name(v.dtype));
  b.check(t == DType::F32 || (!k.dims.empty() && k.dims.back() % 4 == 0),
          "an f16 KV cache needs a head dim that is a multiple of 4, got {} (use an f32 cache)",
          k.dims.empty() ? 0 : k.dims.back());
  return t;
}

CacheWrite declare_cache_write(OpBuilder& b, size_t value, size_t cache) {
  check_pair(b, value, cache);
  const DType t = check_kv_cache_dtype(b, cache, cache);
  CacheWrite w;
  w.params = b.uniform<CacheParams>();
  w.per_word = kv_per_word(t);
  w.dispatch = b.dispatch({"ops/kv_cache/update_cache.wgsl", "main", {}, {}, kv_prelude(t)},
                          {Binding::tensor(b.arg(value)), Binding::tensor(b.arg(cache)), w.params});
  return w;
}

void resize_cache_write(ResizeContext& r, const CacheWrite& w, size_t value, size_t cache, int64_t pos) {
  check_live(r, value, cache, pos);
  set_write(r, w, r.tensor(value).dims, r.tensor(cache).dims, pos, 1, w.per_word);
}

CacheWrite declare_kv_cache_write(OpBuilder& b, size_t k, size_t v, size_t kc, size_t vc) {
  check_pair(b, k, kc);
  check_pair(b, v, vc);
  const DType t = check_kv_cache_dtype(b, kc, vc);
  b.check(b.tensor(k).dims == b.tensor(v).dims && b.tensor(kc).dims == b.tensor(vc).dims,
          "k {} / v {} and their caches must have the same shapes", dims_str(b.tensor(k).dims), dims_str(b.tensor(v).dims));
  CacheWrite w;
  w.params = b.uniform<CacheParams>();
  w.per_word = kv_per_word(t);
  w.dispatch = b.dispatch({"ops/kv_cache/update_kv_cache.wgsl", "main", {}, {}, kv_prelude(t)},
                          {Binding::tensor(b.arg(k)), Binding::tensor(b.arg(v)), Binding::tensor(b.arg(kc)),
                           Binding::tensor(b.arg(vc)), w.params});
  return w;
}

void resize_kv_cache_write(ResizeContext& r, const CacheWrite& w, size_t k, size_t v, size_t kc, size_t vc, int64_t pos) {
  check_live(r, k, kc, pos);
  check_live(r, v, vc, pos);
  if (r.tensor(k).dims != r.tensor(v).dims) r.fail("live k {} and v {} differ", dims_str(r.tensor(k).dims), dims_str(r.tensor(v).dims));
  set_write(r, w, r.tensor(k).dims, r.tensor(kc).dims, pos, 2, w.per_word);
}

namespace {

void build_update_cache(OpBuilder& b) {
  b.check_args(3);
  b.int_arg(2);
  CacheWrite w = declare_cache_write(b, 0, 1);
  b.on_resize([=](ResizeContext& r) { resize_cache_write(r, w, 0, 1, r.int_arg(2)); });
}

}  // namespace

void register_kv_cache_ops(OpRegistry& r) {
  r.add({"llama.update_cache.default", build_update_cache, {"ops/kv_cache/update_cache.wgsl:main"}, true});
}

}  // namespace wgrt::ops
