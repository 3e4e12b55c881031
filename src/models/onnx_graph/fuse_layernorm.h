// The decomposed LayerNorm that exporters emit (PyTorch's LayerNorm before opset 17, hand-written norms),
// recognised in the ONNX node list and lowered as one aten.native_layer_norm:
//   mu  = ReduceMean(x, axes)            d  = Sub(x, mu)
//   d2  = Pow(d, 2) | Mul(d, d)          var = ReduceMean(d2, axes)
//   ve  = Add(var, eps) | Add(eps, var)  sd = Sqrt(ve)
//   y   = Div(d, sd)  [ y = Mul(y, gamma) | Mul(gamma, y) ]  [ y = Add(y, beta) | Add(beta, y) ]
// Structural conditions (find_layernorms): the chain as above, keepdims = 1, both ReduceMeans with the same
// axes (attribute, or from opset 18 an initializer input), and every intermediate read only inside the pattern (not a graph output). Conditions that
// need dims and values (try_fused_layernorm, at lowering time): the axes are the trailing dims of x, eps, the
// exponent 2, gamma and beta are host constants (gamma/beta a scalar or of the normalised dims after leading
// 1s), x is a float device tensor, and y's dims equal x's. When they do not hold the nodes are lowered one by
// one as usual, so the fusion never changes what a model computes, only how (fp32 either way; the fused
// kernel sums in another order: results agree to rounding, see tests/models/onnx_layernorm_test.cpp).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "formats/onnx/onnx_file.h"

namespace wgrt::onnx {

class Lowering;

struct LayerNormMatch {
  std::vector<size_t> nodes;  // indices into Model::nodes, in order; the last produces y
  std::string x, y, eps, two, gamma, beta;  // value names (two: the Pow exponent or "" for Mul(d, d))
  std::vector<int64_t> axes;
};

std::vector<LayerNormMatch> find_layernorms(const Model& m);

// Lowers the match as one norm if the lowering-time conditions hold (Lowering::node must be its last node);
// returns false, having emitted nothing, otherwise.
bool try_fused_layernorm(Lowering& l, const LayerNormMatch& p);

}  // namespace wgrt::onnx
