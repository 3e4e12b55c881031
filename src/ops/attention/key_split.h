// The decode split-KV rule (tuning policy entries sdpa_split_*), shared by llama.sdpa_with_kv_cache's decode
// routes (sdpa.cpp plan_flash) and wgrt.sdpa_batched's decode route (sdpa_batched.cpp).
#pragma once
#include <algorithm>
#include <cstdint>

#include "util/dispatch_grid.h"
#include "webgpu/tuning.h"

namespace wgrt::ops {

constexpr int64_t kMaxKeySplits = 64;  // key splits per decode row (the partials scratch bound)

struct KeySplit {
  int64_t nsplit = 1;  // splits (1: none)
  int64_t chunk = 0;   // keys per split; the last split holds ctx - (nsplit - 1) * chunk
};

// ctx >= 1 keys over `base` workgroups (before the split): from sdpa_split_min_context keys, chunks of a
// multiple of sdpa_split_min_chunk keys (a chunk of 132 keys would cost a second, 4-key tile of the decode kernel
// where 256 costs two full ones), enough for at most about sdpa_split_target_workgroups workgroups, at most
// max_splits (<= kMaxKeySplits) splits; below that, one split of ctx keys. Pure, any thread.
inline KeySplit decode_key_split(const webgpu::Tuning& tu, int64_t base, int64_t ctx, int64_t max_splits) {
  if (ctx < tu.sdpa_split_min_context || max_splits < 2) return {1, ctx};
  const int64_t min_chunk = std::max<int64_t>(tu.sdpa_split_min_chunk, 1);
  int64_t n = std::max<int64_t>(tu.sdpa_split_target_workgroups / std::max<int64_t>(base, 1), 1);
  n = std::min<int64_t>({n, int64_t(div_up(uint64_t(ctx), uint64_t(min_chunk))), max_splits, kMaxKeySplits});
  KeySplit s;
  s.chunk = int64_t(div_up(div_up(uint64_t(ctx), uint64_t(n)), uint64_t(min_chunk))) * min_chunk;
  s.nsplit = int64_t(div_up(uint64_t(ctx), uint64_t(s.chunk)));
  return s;
}

}  // namespace wgrt::ops
