// The rope_qkv.wgsl dispatch of wgrt.rope_qkv_cache (rope_qkv.cpp), for ops that run it as a side dispatch of their
// own (wgrt.linear_ggml_rope_qkv on its GEMM routes: the projection in scratch, then this). Build thread only.
#pragma once
#include <optional>

#include "graph/op_builder.h"
#include "graph/uniform_layout.h"

namespace wgrt::ops {

struct RopeQkvParams {  // rope_qkv.wgsl's Params
  uint32_t pairs, half, hq, hkv, seq, pos, c_max, vsep;
};
WGRT_UNIFORM(RopeQkvParams, pairs, half, hq, hkv, seq, pos, c_max, vsep);

struct RopeQkvDispatch {
  DispatchRef d;
  UniformRef u;
  uint32_t per_word = 1;  // pairs per invocation: the caches' kv_per_word (ops/kv_cache/kv_cache.h)
};

// One rope_qkv.wgsl dispatch in route group `route` (-1: every route): qkv [B, S, (Hq + 2 Hkv) D] (or (Hq + Hkv) D
// with the v heads from vin [B, S, Hkv D]), tables cos / sin [C, D/2] (nullopt: no rotation), hf rotate-half pairs,
// else interleaved; writes q_out and the caches, whose dtype is kv_type (f32, or f16 with D % 4 == 0: the caller
// checks, kv_cache.h check_kv_cache_dtype). Sized by set_rope_qkv.
RopeQkvDispatch add_rope_qkv(OpBuilder& b, Binding qkv, std::optional<Binding> cos, std::optional<Binding> sin,
                             std::optional<Binding> vin, Binding q_out, Binding k_cache, Binding v_cache, bool hf,
                             DType kv_type, int route);
// Its parameters for B * S tokens at input_pos pos (the caller checked pos + S against the cache and tables).
void set_rope_qkv(ResizeContext& r, const RopeQkvDispatch& d, int64_t B, int64_t S, int64_t pos, int64_t hq, int64_t hkv,
                  int64_t D, int64_t c_max, bool vsep);

// At resize: throws LimitError (naming the node) unless 0 <= pos and pos + S <= rows, the positions the caches and
// the RoPE tables hold; called before anything is written, so a refused step leaves the graph usable.
void check_rope_positions(const ResizeContext& r, int64_t pos, int64_t S, int64_t rows);

}  // namespace wgrt::ops
