// NumPy broadcasting rules (device-free): shapes align at the innermost dim; a dim of 1 stretches.
#pragma once
#include <optional>

#include "graph/value.h"

namespace wgrt::ops {

// The broadcast shape of a and b, or nullopt if incompatible.
std::optional<Dims> broadcast_shape(const Dims& a, const Dims& b);

// Element strides of `in` when read at the coordinates of `out` (rank of out; stretched dims get 0).
std::vector<uint32_t> broadcast_strides(const Dims& in, const Dims& out);

// Drops size-1 dims of `out` and merges adjacent dims that both operands treat alike (both broadcast, or both
// read contiguously), in place: the same elements at the same offsets with the fewest dims (at least 1).
void collapse_broadcast(Dims& out, std::vector<uint32_t>& sa, std::vector<uint32_t>& sb);

}  // namespace wgrt::ops
