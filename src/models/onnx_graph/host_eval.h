// Host evaluation of ONNX ops on HostTensors (import-time folding of shape computations and constants).
// NumPy broadcasting; results keep the ONNX element type of the first input (comparisons give Bool).
#pragma once
#include <functional>
#include <optional>

#include "models/onnx_graph/host_tensor.h"
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

std::optional<Dims> broadcast_dims(const Dims& a, const Dims& b);

// a (op) b elementwise with broadcasting: f on doubles for float types (or when fi is null), fi on int64 for
// integer/bool types. logical: the result is Bool.
HostTensor host_binary(const Lowering& l, const HostTensor& a, const HostTensor& b,
                       const std::function<double(double, double)>& f,
                       const std::function<int64_t(int64_t, int64_t)>& fi, bool logical);
HostTensor host_where(const Lowering& l, const HostTensor& c, const HostTensor& x, const HostTensor& y);
// x broadcast to `dims` (Expand).
HostTensor host_expand(const HostTensor& x, const Dims& dims);
// out.dims[k] = x.dims[perm[k]].
HostTensor host_permute(const HostTensor& x, const std::vector<int64_t>& perm);
// Elements [starts[k] : ends[k] : steps[k]] along each axis (already clamped; steps may be negative).
HostTensor host_slice(const HostTensor& x, const Dims& starts, const Dims& steps, const Dims& out_dims);
HostTensor host_concat(const std::vector<const HostTensor*>& parts, int64_t axis);
// numpy.take(x, idx, axis) (indices already normalised to >= 0).
HostTensor host_gather(const HostTensor& x, const HostTensor& idx, int64_t axis);

}  // namespace wgrt::onnx
