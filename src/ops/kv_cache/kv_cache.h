// Shared by llama.update_cache and llama.sdpa_with_kv_cache: the cache-write dispatch and its checks.
#pragma once
#include "graph/op_builder.h"

namespace wgrt::ops {

struct CacheWrite {
  UniformRef params;
  DispatchRef dispatch;
};

// Declares a dispatch writing tensor argument `value` [B,S,H,D] into tensor argument `cache` [B,C_max,H,D]
// (checks dtypes f32, ranks, and that B, H, D agree at build).
CacheWrite declare_cache_write(OpBuilder& b, size_t value, size_t cache);

// At resize: checks live dims, 0 <= pos and pos + S <= C_max (LimitError naming the node otherwise) and sets
// the params and grid.
void resize_cache_write(ResizeContext& r, const CacheWrite& w, size_t value, size_t cache, int64_t pos);

// K and V written by one dispatch (update_kv_cache.wgsl; two grid layers). Same checks as above for both pairs.
CacheWrite declare_kv_cache_write(OpBuilder& b, size_t k, size_t v, size_t k_cache, size_t v_cache);
void resize_kv_cache_write(ResizeContext& r, const CacheWrite& w, size_t k, size_t v, size_t k_cache, size_t v_cache,
                           int64_t pos);

}  // namespace wgrt::ops
