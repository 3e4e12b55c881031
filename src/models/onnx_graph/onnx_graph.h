// ONNX model -> wgrt Graph (the importer's mapping half; parsing is formats/onnx/onnx_file.h).
//
// A graph is built for one concrete set of input dims (symbolic ONNX dims resolved by the caller) and the
// values of the non-float inputs (int64/int32/bool inputs are shape-like: indices, axes, sizes, so they
// are folded on the host with everything they feed). OnnxModel (include/wgrt/onnx.h) caches one built
// executable per such signature, so one loaded model serves several input sizes.
// Nodes whose inputs are all host-known are evaluated on the host (Shape, Gather, Concat, Unsqueeze, Cast,
// Slice, arithmetic on shapes, ...); the rest become wgrt graph ops on f32 device tensors.
// Errors: Unsupported naming the node, op and what is missing (op, opset, element type, attribute value);
// InvalidArgument for input dims that disagree with the model.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats/onnx/onnx_file.h"
#include "graph/graph.h"
#include "models/onnx_graph/host_tensor.h"

namespace wgrt::onnx {

struct Port {
  std::string name;
  ElemType type = ElemType::Float;
  Dims dims;
  ValueId id = -1;                 // graph input/output tensor (f32), or -1
  std::optional<HostTensor> host;  // an output computed at import time, or a host-folded (non-float) input
};

struct BuiltGraph {
  Graph graph;
  std::vector<Port> inputs;   // model input order; float inputs have id >= 0
  std::vector<Port> outputs;  // model output order
  size_t layernorms_fused = 0;  // decomposed LayerNorm patterns lowered as one norm (fuse_layernorm.h)
  size_t patterns_fused = 0;    // linear (MatMul + bias) and erf GELU patterns lowered as one op (fuse_patterns.h)
};

struct LowerOptions {
  bool fuse_layernorm = true;  // recognise the decomposed LayerNorm pattern (fuse_layernorm.h)
  bool fuse_patterns = true;   // linear and erf GELU patterns (fuse_patterns.h); WGRT_NO_PATTERN_FUSION=1 also turns them off
};

// `inputs`: every model input by name: float inputs need only dims (data is bound at execute), except those
// named in `host_floats`, which (like every non-float input) need their values and are folded on the host.
// Throws as above; NeedsHostInput (lowering.h) when a node needs the values of a device-bound float input.
BuiltGraph build_onnx_graph(const Model& m, const std::map<std::string, HostTensor>& inputs,
                            const std::set<std::string>& host_floats = {}, const LowerOptions& options = {});

// Refuses, before any input is known, a model with an operator (or opset) the importer has no rule for:
// Unsupported naming the first such node, e.g. "ONNX node 'x' (LSTM): operator LSTM is not supported".
void check_operators(const Model& m);

// The ONNX operators the importer claims (default domain), sorted.
std::vector<std::string> supported_operators();

}  // namespace wgrt::onnx
