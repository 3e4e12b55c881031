// Gemma's attention options as the _swa attention ops take them (wgrt.sdpa_with_kv_cache_swa in sdpa.cpp,
// wgrt.sdpa_batched_swa in sdpa_batched.cpp): the two arguments before out.
#pragma once
#include <cmath>
#include <cstdint>

#include "graph/op_builder.h"

namespace wgrt::ops {

struct AttnOptions {
  double softcap = 0;  // > 0: scores s -> softcap * tanh(s / softcap) before the softmax; 0: none
  int64_t window = 0;  // > 0: a query at position P sees only keys t with P - t < window; 0: all
};

// ext: reads softcap (double, finite, >= 0) at argument `first` and window (int, 0..2^30) at first + 1,
// InvalidArgument (through OpBuilder::check) otherwise; !ext: no options. Build time, the builder's thread.
inline AttnOptions read_attn_options(OpBuilder& b, size_t first, bool ext) {
  if (!ext) return {};
  AttnOptions o{b.real_arg(first), b.int_arg(first + 1)};
  b.check(std::isfinite(o.softcap) && o.softcap >= 0, "softcap {} must be finite and >= 0", o.softcap);
  b.check(o.window >= 0 && o.window <= (int64_t(1) << 30), "window {} must be in 0..2^30", o.window);
  return o;
}

}  // namespace wgrt::ops
