// Shared by llama.update_cache and llama.sdpa_with_kv_cache: the cache-write dispatch and its checks.
#pragma once
#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace wgrt::ops {

// KV caches are f32 or f16 (IEEE binary16, two per u32 word: kv_f16.wgsl). The prelude every kernel that reads or
// writes a cache of element type `t` is built with (webgpu::KernelSpec::prelude): {"ops/kv_cache/kv_f32.wgsl"}
// or {"ops/kv_cache/kv_f16.wgsl"}. Throws InvalidArgument for another dtype.
std::vector<std::string> kv_prelude(DType t);

// Checks that tensor arguments k_cache and v_cache are both f32 or both f16, and that an f16 cache's last dim
// (the head dim D) is a multiple of 4 (its writers store pairs of elements, its vec4 readers 4). Returns the
// dtype; InvalidArgument naming the node otherwise. Build time.
DType check_kv_cache_dtype(OpBuilder& b, size_t k_cache, size_t v_cache);

// Cache elements per u32 word of a cache of element type t (the kernels' KV_PER_WORD): 2 for f16, else 1. A writer
// dispatch takes one word per invocation.
constexpr uint32_t kv_per_word(DType t) { return t == DType::F16 ? 2 : 1; }

struct CacheWrite {
  UniformRef params;
  DispatchRef dispatch;
  uint32_t per_word = 1;  // cache elements per invocation (kv_per_word)
};

// Declares a dispatch writing tensor argument `value` [B,S,H,D] into tensor argument `cache` [B,C_max,H,D]
// (checks dtypes: value f32, cache f32 or f16 (check_kv_cache_dtype); ranks; and that B, H, D agree at build).
CacheWrite declare_cache_write(OpBuilder& b, size_t value, size_t cache);

// At resize: checks live dims, 0 <= pos and pos + S <= C_max (LimitError naming the node otherwise) and sets
// the params and grid.
void resize_cache_write(ResizeContext& r, const CacheWrite& w, size_t value, size_t cache, int64_t pos);

// K and V written by one dispatch (update_kv_cache.wgsl; two grid layers). Same checks as above for both pairs.
CacheWrite declare_kv_cache_write(OpBuilder& b, size_t k, size_t v, size_t k_cache, size_t v_cache);
void resize_kv_cache_write(ResizeContext& r, const CacheWrite& w, size_t k, size_t v, size_t k_cache, size_t v_cache,
                           int64_t pos);

}  // namespace wgrt::ops
