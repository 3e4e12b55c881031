#include "models/onnx_graph/fuse_layernorm.h"

#include <algorithm>
#include <map>
#include <set>

#include "models/onnx_graph/fuse_common.h"
#include "models/onnx_graph/host_tensor.h"
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

namespace {

// A ReduceMean with keepdims = 1 and its axes as an attribute (before opset 18) or as an initializer input
// (opset 18).
bool mean_axes(const Model& m, const Node& n, std::vector<int64_t>* axes) {
  if (n.op_type != "ReduceMean" || n.inputs.empty() || n.inputs.size() > 2 || n.outputs.size() != 1) return false;
  bool given = false;
  if (n.inputs.size() == 2) {
    auto it = m.initializers.find(n.inputs[1]);
    if (it == m.initializers.end() || m.opset < 18) return false;
    const HostTensor h = host_from(it->second);
    if (h.is_float() || h.numel() == 0) return false;
    *axes = h.ints();
    given = true;
  }
  for (const auto& [k, a] : n.attrs) {
    if (k == "axes" && a.kind == Attribute::Kind::Ints && !given) *axes = a.ints, given = true;
    else if (k == "axes" && a.kind == Attribute::Kind::Int && !given) *axes = {a.i}, given = true;
    else if (!(k == "keepdims" && a.kind == Attribute::Kind::Int && a.i == 1)) return false;
  }
  return given;
}


// gamma/beta: a host float tensor whose dims (leading 1s dropped) are the normalised dims, or a scalar.
const HostTensor* param_fits(Lowering& l, const std::string& name, const Dims& ns, size_t rank) {
  auto it = l.vals.find(name);
  if (it == l.vals.end() || !it->second.host || !it->second.host->is_float()) return nullptr;
  const HostTensor& h = *it->second.host;
  if (h.dims.size() > rank) return nullptr;  // the product would gain dims
  Dims d = h.dims;
  while (!d.empty() && d.front() == 1 && d != ns) d.erase(d.begin());
  return d == ns || h.numel() == 1 ? &h : nullptr;
}

// As an f32 constant of the normalised dims.
ValueId param(Lowering& l, const HostTensor& h, const Dims& ns, const char* what) {
  std::vector<float> v(size_t(numel(ns)));
  for (size_t k = 0; k < v.size(); ++k) v[k] = float(h.numel() == 1 ? h.at(0) : h.at(k));
  return l.constant_f32(l.label(what), ns, std::move(v));
}

}  // namespace

std::vector<LayerNormMatch> find_layernorms(const Model& m) {
  const Consumers c(m);
  std::vector<LayerNormMatch> out;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    LayerNormMatch p;
    const Node& r1 = m.nodes[i];
    if (!r1.domain.empty() || !mean_axes(m, r1, &p.axes)) continue;
    p.x = r1.inputs[0];
    size_t k = 0;
    const Node* sub = c.sole(r1.outputs[0], &k);
    if (!is(sub, "Sub", 2) || sub->inputs[0] != p.x || sub->inputs[1] != r1.outputs[0]) continue;
    p.nodes = {i, k};
    const std::string d = sub->outputs[0];
    const auto& du = c.of(d);
    if (du.size() != 2 || c.is_output(d)) continue;
    const Node* sq = nullptr;
    const Node* div = nullptr;
    for (size_t u : du) {
      const Node& n = m.nodes[u];
      if (is(&n, "Div", 2) && n.inputs[0] == d) div = &n;
      else if (is(&n, "Pow", 2) && n.inputs[0] == d) sq = &n, p.two = n.inputs[1];
      else if (is(&n, "Mul", 2) && n.inputs[0] == d && n.inputs[1] == d) sq = &n;
    }
    if (!sq || !div) continue;
    p.nodes.push_back(size_t(sq - m.nodes.data()));
    std::vector<int64_t> axes2;
    const Node* r2 = c.sole(sq->outputs[0], &k);
    if (!r2 || !r2->domain.empty() || !mean_axes(m, *r2, &axes2) || axes2 != p.axes) continue;
    p.nodes.push_back(k);
    const Node* add = c.sole(r2->outputs[0], &k);
    if (!is(add, "Add", 2) || (p.eps = other(*add, r2->outputs[0])).empty()) continue;
    p.nodes.push_back(k);
    const Node* sqrt = c.sole(add->outputs[0], &k);
    if (!is(sqrt, "Sqrt", 1)) continue;
    p.nodes.push_back(k);
    size_t kd = 0;
    if (c.sole(sqrt->outputs[0], &kd) != div || div->inputs[1] != sqrt->outputs[0]) continue;
    p.nodes.push_back(kd);
    p.y = div->outputs[0];
    for (const char* op : {"Mul", "Add"}) {
      const Node* n = c.sole(p.y, &k);
      std::string v;
      if (!is(n, op, 2) || (v = other(*n, p.y)).empty()) continue;
      (op[0] == 'M' ? p.gamma : p.beta) = v;
      p.nodes.push_back(k);
      p.y = n->outputs[0];
    }
    std::sort(p.nodes.begin(), p.nodes.end());
    if (m.nodes[p.nodes.back()].outputs[0] == p.y) out.push_back(std::move(p));
  }
  return out;
}

bool try_fused_layernorm(Lowering& l, const LayerNormMatch& p) {
  auto xv = l.vals.find(p.x);
  if (xv == l.vals.end() || xv->second.host || xv->second.type != ElemType::Float) return false;
  const Dims x = xv->second.dims;
  const int64_t r = int64_t(x.size());
  std::vector<int64_t> axes;
  for (int64_t a : p.axes) {
    if (a < -r || a >= r) return false;
    axes.push_back(a < 0 ? a + r : a);
  }
  std::sort(axes.begin(), axes.end());
  if (axes.empty() || axes.back() != r - 1 || axes.front() != r - int64_t(axes.size())) return false;
  for (size_t k = 1; k < axes.size(); ++k)
    if (axes[k] != axes[k - 1] + 1) return false;
  const auto eps = host_scalar(l, p.eps);
  if (!eps || (!p.two.empty() && host_scalar(l, p.two) != 2.0)) return false;
  const Dims ns(x.begin() + axes.front(), x.end());
  const HostTensor* g = p.gamma.empty() ? nullptr : param_fits(l, p.gamma, ns, x.size());
  const HostTensor* b = p.beta.empty() ? nullptr : param_fits(l, p.beta, ns, x.size());
  if ((!p.gamma.empty() && !g) || (!p.beta.empty() && !b)) return false;
  std::optional<ValueId> gamma, beta;
  if (g) gamma = param(l, *g, ns, "gamma");
  if (b) beta = param(l, *b, ns, "beta");
  const ValueId y = l.emit("aten.native_layer_norm.default",
                           {l.gpu_of(xv->second, p.x), l.g.int_list(ns), gamma ? *gamma : l.g.none(), beta ? *beta : l.g.none(), l.g.real(*eps)},
                           x, "layer_norm");
  l.set_gpu(0, y, x);
  return true;
}

}  // namespace wgrt::onnx
