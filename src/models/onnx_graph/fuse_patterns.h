// Node patterns of exported transformer graphs, each lowered as one wgrt op (the decomposed LayerNorm has its
// own file, fuse_layernorm.h). As there: found on the ONNX node list by structure (find_patterns), lowered at
// the pattern's last node when the lowering-time conditions on dims and constants hold (try_fused_pattern),
// and node by node otherwise, so a fusion never changes what a model computes, only how (fp32 either way).
// Every intermediate must be read only inside its pattern and not be a graph output.
//   linear:   y = Add(MatMul(x, W), b) (Add's operands either way round) -> aten.addmm(b, x as [rows, K], W),
//             viewed back to [..., N]: the bias is added in the GEMM's epilogue (one dispatch, not two, and the
//             [rows, N] product is not written and read again). Conditions: W a host-known float [K, N], b a
//             host-known float of dims [N] after leading 1s and of rank <= x's, x a float device tensor of rank
//             >= 2 with last dim K. (A MatMul of two device tensors, e.g. attention scores, stays as it is.)
//   erf GELU: y = 0.5 x (1 + erf(x / sqrt 2)) in the two orders exporters write:
//               Mul(Mul(x, Add(Erf(Div(x, s)), 1)), 0.5)    torch.onnx.export of nn.GELU / F.gelu
//               Mul(Mul(x, 0.5), Add(Erf(Div(x, s)), 1))    Hugging Face's gelu
//             (Div(x, sqrt 2) or Mul(x, 1 / sqrt 2); Add/Mul operands either way round) -> aten.gelu(x, "none")
//             (one dispatch, not five). Conditions: the constants are host-known float scalars (any rank up to
//             x's, one element) equal to sqrt 2 (or 1 / sqrt 2), 1 and 0.5 within 1e-6 relative; x a float
//             device tensor.
//   attention: y = MatMul(Softmax(MatMul(q, Transpose(k)) [* c | / c]), v) -> et_vk.sdpa(q, k, v, scale) (the
//             non-causal encoder SDPA: 3 dispatches at most instead of 5, no separate transpose and scaling
//             passes over k and the scores). Conditions: q, k, v float device tensors of rank 3 ([B, T, D], as
//             one head) or 4 ([B, H, T, D]) with equal leading dims (no broadcast), the Transpose swapping the
//             last two axes only, the Softmax over the last axis, c a host-known positive float scalar.
//             Packed form (timm / torchvision ViT): q, k, v = Gather(t, 0 | 1 | 2, axis 0) of t = Transpose(Reshape(
//             qkv, [B, S, 3, H, D]), perm [2, 0, 3, 1, 4]) and the result read as Reshape(Transpose(y, perm
//             [0, 2, 1, 3]), [B, S, H * D]) -> wgrt.sdpa_qkv(qkv, H, scale) (q, k, v read in place, the output
//             written in the merged layout: no head split or merge copies). Conditions: qkv a float device tensor
//             [B, S, 3 * H * D], the shapes host-known (0 / -1 entries resolved as Reshape does), the indices host-known
//             scalars 0, 1, 2, the intermediates read only inside the pattern; otherwise node by node.
// WGRT_NO_PATTERN_FUSION=1 turns them all off (build_onnx_graph).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "formats/onnx/onnx_file.h"

namespace wgrt::onnx {

class Lowering;

struct PatternMatch {
  enum class Kind { Linear, Gelu, Attention } kind = Kind::Linear;
  std::vector<size_t> nodes;  // indices into Model::nodes, sorted; the last produces y
  std::string x, y;                  // attention: x is q
  std::string w, b;                  // linear: the MatMul's B and the Add's other operand; attention: k and v
  std::string scale, one, half;      // GELU: the Div/Mul constant, the 1 of the Add and the 0.5; attention: scale ("" none)
  bool scale_is_mul = false;         // GELU: x * (1 / sqrt 2) rather than x / sqrt 2; attention: Mul, not Div
  // Attention on a packed projection (below): the Reshape's input and target shape, the three Gathers' index
  // inputs (q, k, v order), the Transpose nodes' indices (split, merge) and the merge Reshape's target shape.
  std::string qkv, qkv_shape, out_shape;
  std::string gather_idx[3];
  size_t split_t = 0, merge_t = 0;
  size_t key_t = 0;  // attention: the key Transpose's index
};

// Matches with disjoint node sets, in node order.
std::vector<PatternMatch> find_patterns(const Model& m);

// Lowers the match as one op if the lowering-time conditions hold (Lowering::node must be its last node);
// returns false, having emitted nothing, otherwise.
bool try_fused_pattern(Lowering& l, const PatternMatch& p);

}  // namespace wgrt::onnx
