// llama.sdpa_with_kv_cache.default: route control (tests and benchmarks).
#pragma once
#include <cstdint>

namespace wgrt::ops {

// The split-KV (flash-decoding) route is chosen when S == 1 and the live context (input_pos + 1) is at least
// this many keys. Default 512. Read by the resize hook at every execute, so a change applies to the next
// execute of existing graphs. Pass INT64_MAX to disable the split route, 1 to force it for every decode step.
void set_sdpa_split_min_context(int64_t keys);
int64_t sdpa_split_min_context();

// Keys per split-KV chunk (fixed by the kernel's workgroup array).
constexpr int64_t kSdpaSplitChunk = 256;

}  // namespace wgrt::ops
