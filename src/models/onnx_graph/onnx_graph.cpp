#include "models/onnx_graph/onnx_graph.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include "models/onnx_graph/fuse_layernorm.h"
#include "models/onnx_graph/fuse_patterns.h"
#include "models/onnx_graph/lowering.h"
#include "ops/conv/conv_fusion.h"
#include "util/printable.h"

namespace wgrt::onnx {

namespace {

const std::map<std::string, OpRule>& rules() {
  static const std::map<std::string, OpRule> table = [] {
    std::map<std::string, OpRule> t;
    for (auto* f : {elementwise_rules, nn_rules, shape_rules, reduce_rules, matmul_rules, resize_rules})
      for (OpRule& r : f()) t.emplace(r.op, r);
    return t;
  }();
  return table;
}

// Opset 18 changed Pad (axes), Reduce* (axes as an input), Resize (axes, antialias, keep_aspect_ratio_policy)
// and Split (num_outputs) among the claimed operators; their rules implement those forms.
constexpr int64_t kMaxOpset = 18;

const OpRule& rule_for(const Model& m, const Node& n) {
  if (!n.domain.empty())
    throw Unsupported(fmt::format("ONNX node {}: domain '{}' is not supported (only the default ONNX domain)", n.label(), printable(n.domain)));
  auto it = rules().find(n.op_type);
  if (it == rules().end()) throw Unsupported(fmt::format("ONNX node {}: operator {} is not supported by wgrt", n.label(), printable(n.op_type)));
  if (m.opset < it->second.since)
    throw Unsupported(fmt::format("ONNX node {}: {} before opset {} is not supported (the model imports opset {})", n.label(),
                                  n.op_type, it->second.since, m.opset));
  return it->second;
}

}  // namespace

std::vector<std::string> supported_operators() {
  std::vector<std::string> out;
  for (const auto& [k, v] : rules()) out.push_back(k);
  return out;
}

void check_operators(const Model& m) {
  if (m.opset > kMaxOpset)
    throw Unsupported(fmt::format("ONNX file {}: opset {} is newer than wgrt supports (at most {})", m.path, m.opset, kMaxOpset));
  for (const auto& n : m.nodes) rule_for(m, n);
}

BuiltGraph build_onnx_graph(const Model& m, const std::map<std::string, HostTensor>& inputs, const std::set<std::string>& host_floats,
                            const LowerOptions& options) {
  check_operators(m);
  BuiltGraph out;
  Lowering l(m, out.graph);
  for (const auto& [name, t] : m.initializers) {
    Val v;
    v.type = t.type;
    v.dims = t.dims;
    v.host = host_from(t);
    l.vals[name] = std::move(v);
  }
  for (const auto& vi : m.inputs) {
    auto it = inputs.find(vi.name);
    if (it == inputs.end()) throw InvalidArgument(fmt::format("ONNX model input '{}' is not given", printable(vi.name)));
    const HostTensor& given = it->second;
    if (vi.has_shape) {
      bool ok = given.dims.size() == vi.dims.size();
      for (size_t k = 0; ok && k < vi.dims.size(); ++k) ok = vi.dims[k].value < 0 || vi.dims[k].value == given.dims[k];
      if (!ok) {
        std::vector<std::string> want;
        for (const auto& d : vi.dims) want.push_back(d.value >= 0 ? std::to_string(d.value) : (d.param.empty() ? "?" : printable(d.param)));
        throw InvalidArgument(fmt::format("ONNX model input '{}' has dims {}; the model needs [{}]", printable(vi.name),
                                          dims_str(given.dims), fmt::join(want, ", ")));
      }
    }
    for (int64_t d : given.dims)
      if (d < 0) throw InvalidArgument(fmt::format("ONNX model input '{}': negative dim in {}", printable(vi.name), dims_str(given.dims)));
    Port p{vi.name, vi.type, given.dims, -1, std::nullopt};
    Val v;
    v.type = vi.type;
    v.dims = given.dims;
    v.graph_input = true;
    if (vi.type == ElemType::Float && !host_floats.count(vi.name)) {
      for (int64_t d : given.dims)
        if (d == 0) throw Unsupported(fmt::format("ONNX model input '{}': empty tensors ({}) are not supported", printable(vi.name), dims_str(given.dims)));
      p.id = v.id = out.graph.input(vi.name, DType::F32, given.dims);
    } else {
      if (given.type != vi.type || given.numel() != numel(given.dims) || (given.is_float() ? given.f.size() : given.i.size()) != size_t(given.numel()))
        throw InvalidArgument(fmt::format("ONNX model input '{}' must be {} data of dims {}", printable(vi.name), elem_name(vi.type), dims_str(given.dims)));
      p.host = v.host = given;
    }
    out.inputs.push_back(std::move(p));
    l.vals[vi.name] = std::move(v);
  }
  auto lower_node = [&](const Node& n) {
    l.node = &n;
    rule_for(m, n).lower(l);
    for (const auto& o : n.outputs)
      if (!o.empty() && !l.vals.count(o)) l.unsupported("output '{}' is not produced by wgrt's lowering", printable(o));
  };
  // Fused node patterns (decomposed LayerNorms, fuse_layernorm.h; linear and erf GELU, fuse_patterns.h): their
  // nodes wait for the last one, which lowers them as one op or, failing the lowering-time checks, one by one.
  struct Fusion {
    const std::vector<size_t>* nodes;
    std::function<bool()> lower;
    size_t* fused;
  };
  const std::vector<LayerNormMatch> norms = options.fuse_layernorm ? find_layernorms(m) : std::vector<LayerNormMatch>{};
  const std::vector<PatternMatch> patterns = !options.fuse_patterns || std::getenv("WGRT_NO_PATTERN_FUSION") ? std::vector<PatternMatch>{} : find_patterns(m);
  std::vector<Fusion> fusions;
  for (const auto& p : norms) fusions.push_back({&p.nodes, [&l, &p] { return try_fused_layernorm(l, p); }, &out.layernorms_fused});
  for (const auto& p : patterns) fusions.push_back({&p.nodes, [&l, &p] { return try_fused_pattern(l, p); }, &out.patterns_fused});
  std::map<size_t, const Fusion*> fusion_at;
  std::set<size_t> deferred;
  for (const Fusion& f : fusions) {
    if (std::any_of(f.nodes->begin(), f.nodes->end(), [&](size_t k) { return deferred.count(k) || fusion_at.count(k); })) continue;
    fusion_at[f.nodes->back()] = &f;
    deferred.insert(f.nodes->begin(), f.nodes->end() - 1);
  }
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    if (deferred.count(i)) continue;
    auto it = fusion_at.find(i);
    if (it == fusion_at.end()) {
      lower_node(m.nodes[i]);
      continue;
    }
    l.node = &m.nodes[i];
    if (it->second->lower()) {
      ++*it->second->fused;
      continue;
    }
    for (size_t k : *it->second->nodes) lower_node(m.nodes[k]);
  }
  l.node = nullptr;
  for (const auto& vo : m.outputs) {
    const Val& v = l.vals.at(vo.name);
    Port p{vo.name, v.type, v.dims, -1, std::nullopt};
    if (v.host) {
      p.host = v.host;
    } else {
      ValueId id = v.id;
      const TensorValue& t = out.graph.tensor_at(id);
      const bool reused = std::any_of(out.outputs.begin(), out.outputs.end(), [&](const Port& q) { return q.id == id; });
      if (t.role != TensorRole::Intermediate || reused) {  // outputs must be fresh tensors: copy
        std::vector<int64_t> perm(v.dims.size());
        for (size_t k = 0; k < perm.size(); ++k) perm[k] = int64_t(k);
        id = out.graph.tensor(DType::F32, v.dims, vo.name);
        out.graph.op("aten.permute_copy.default", {v.id, out.graph.int_list(perm), id}, vo.name + ".copy");
      }
      out.graph.output(id);
      p.id = id;
    }
    out.outputs.push_back(std::move(p));
  }
  // BatchNorm folding and conv epilogue fusion (ops/conv/conv_fusion.h); WGRT_NO_CONV_FUSION=1 turns it off.
  if (!std::getenv("WGRT_NO_CONV_FUSION")) ops::fuse_conv_epilogues(out.graph);
  return out;
}

}  // namespace wgrt::onnx
