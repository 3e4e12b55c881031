// Graph passes over a convolution and the nodes right after it (run on a built Graph before compiling it; the
// ONNX importer runs them, models/onnx_graph/onnx_graph.cpp):
// - Per-channel add folding: aten.convolution.default (plain or transposed) whose output feeds only an add (or
//   a subtract of) a constant f32 [O, 1, 1] or [1, O, 1, 1] tensor c (ConvTranspose's bias as exporters write
//   it): the conv's bias becomes b + alpha * c (b = 0 without one; in double), and the add goes.
// - BatchNorm folding: aten.convolution.default (plain or transposed; after any channel add) whose output feeds
//   only an inference aten._native_batch_norm_legit_no_training.default with constant f32 [O] parameters, the
//   conv weight (and bias, if any) being constant f32 tensors: the conv gets new constants W' = W * s,
//   b' = (b - mean) * s + beta, s = gamma / sqrt(var + eps) (computed in double, per output channel: the
//   weight's first index, or, transposed [C, O/groups, kh, kw], its group and second index), and the
//   batch-norm node goes.
// - Epilogue fusion: a chain of elementwise nodes after a convolution (mul/add/sub/div by a one-element
//   constant f32 tensor, clamp with finite bounds, relu, sigmoid, tanh, wgrt.hard_sigmoid, and x * f(x) where
//   f is such a chain: HardSwish's decomposed form, SiLU), each intermediate read by the chain only and not a
//   graph output, becomes the epilogue of one wgrt.convolution_epilogue.default (conv_epilogue.h) writing the
//   chain's last tensor; the chain's nodes go. Shapes must not change along the chain (no broadcast growth).
// Tensors left unused keep their ids (the executable allocates no buffer for an unreferenced intermediate or
// constant). Not thread-safe on one Graph.
#pragma once
#include <cstddef>

namespace wgrt {
class Graph;
}

namespace wgrt::ops {

struct ConvFusionStats {
  size_t channel_adds_folded = 0;
  size_t batch_norms_folded = 0;
  size_t convs_with_epilogue = 0;
  size_t nodes_removed = 0;
};

ConvFusionStats fuse_conv_epilogues(Graph& g);

}  // namespace wgrt::ops
