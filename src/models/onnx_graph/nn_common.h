// Helpers shared by the spatial ONNX lowerings (lower_nn.cpp, lower_resize.cpp): 1-D inputs as 2-D, explicit
// pads from auto_pad, asymmetric padding by a constant pad.
#pragma once
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

struct Pads2d {
  int64_t t = 0, l = 0, b = 0, r = 0;  // top, left, bottom, right
};

// Input xi as a 4-D device tensor: [N, C, H, W], or [N, C, 1, L] for a 3-D input (one_d).
struct Spatial {
  ValueId x = -1;
  Dims d4;
  bool one_d = false;
};
Spatial spatial(Lowering& l, size_t xi);
// Sets output 0 from a 4-D result (viewed back to 3-D for a 1-D input).
void finish_spatial(Lowering& l, const Spatial& s, ValueId y, Dims d4);
// An attribute list for (h, w) (one value per spatial dim; absent: fill); a 1-D list gets h = fill. Every
// value must be in [lo, 2^24].
std::vector<int64_t> pair_of(const Lowering& l, const std::vector<int64_t>& v, bool one_d, int64_t fill, int64_t lo, const char* what);
// The node's pads (attribute `pads`, or auto_pad) for spatial kernel/stride/dilation lists of one entry per
// spatial dim of x (dims as given, rank 3 or 4).
Pads2d resolve_pads(Lowering& l, const Dims& x, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                    const std::vector<int64_t>& d, bool transposed);
// Applies asymmetric pads with a constant pad (then p becomes all zero and d4 the padded dims); returns x
// unchanged when the pads are symmetric (unless force).
ValueId pad_asym(Lowering& l, ValueId x, Dims& d4, Pads2d& p, double value, bool force = false);

}  // namespace wgrt::onnx
