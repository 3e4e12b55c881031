// NumPy broadcasting rules (device-free): shapes align at the innermost dim; a dim of 1 stretches.
#pragma once
#include <optional>

#include "graph/value.h"

namespace wgrt::ops {

// The broadcast shape of a and b, or nullopt if incompatible.
std::optional<Dims> broadcast_shape(const Dims& a, const Dims& b);

// Element strides of `in` when read at the coordinates of `out` (rank of out; stretched dims get 0).
std::vector<uint32_t> broadcast_strides(const Dims& in, const Dims& out);

}  // namespace wgrt::ops
