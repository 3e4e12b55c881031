#include "models/onnx_graph/fuse_patterns.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "models/onnx_graph/fuse_common.h"

namespace wgrt::onnx {

namespace {

size_t index_of(const Model& m, const Node* n) { return size_t(n - m.nodes.data()); }

// Mul(x, c) | Mul(c, x) | Div(x, c) (div_ok) read by `n`: the constant operand c, or "".
std::string scaled_by(const Node* n, const std::string& x, bool div_ok) {
  if (div_ok && n->op_type == "Div") return n->inputs[0] == x && n->inputs[1] != x ? n->inputs[1] : "";
  return n->op_type == "Mul" ? other(*n, x) : "";
}

bool find_linear(const Model& m, const Consumers& c, size_t i, PatternMatch* p) {
  const Node& mm = m.nodes[i];
  if (!is(&mm, "MatMul", 2)) return false;
  size_t k = 0;
  const Node* add = c.sole(mm.outputs[0], &k);
  if (!is(add, "Add", 2) || (p->b = other(*add, mm.outputs[0])).empty()) return false;
  p->kind = PatternMatch::Kind::Linear;
  p->x = mm.inputs[0], p->w = mm.inputs[1], p->y = add->outputs[0];
  p->nodes = {i, k};
  return true;
}

bool find_gelu(const Model& m, const Consumers& c, size_t i, PatternMatch* p) {
  const Node& erf = m.nodes[i];
  if (!is(&erf, "Erf", 1)) return false;
  // The scaling node producing erf's input, read only by erf.
  const Node* sc = nullptr;
  for (const Node& n : m.nodes)
    if (n.outputs.size() == 1 && n.outputs[0] == erf.inputs[0]) sc = &n;
  if (!is(sc, "Div", 2) && !is(sc, "Mul", 2)) return false;
  size_t k = 0;
  if (c.sole(sc->outputs[0], &k) != &erf) return false;
  // x: Div's dividend, or the Mul operand that x is also multiplied by below; try both Mul operands.
  for (size_t xi = 0; xi < (sc->op_type == "Div" ? 1u : 2u); ++xi) {
    PatternMatch q;
    q.kind = PatternMatch::Kind::Gelu;
    q.x = sc->inputs[xi];
    q.scale = scaled_by(sc, q.x, true);
    q.scale_is_mul = sc->op_type == "Mul";
    if (q.scale.empty()) continue;
    const Node* add = c.sole(erf.outputs[0], &k);
    if (!is(add, "Add", 2) || (q.one = other(*add, erf.outputs[0])).empty()) continue;
    q.nodes = {index_of(m, sc), i, k};
    const Node* m1 = c.sole(add->outputs[0], &k);
    if (!is(m1, "Mul", 2)) continue;
    q.nodes.push_back(k);
    const std::string f = other(*m1, add->outputs[0]);
    if (f == q.x) {  // torch order: Mul(Mul(x, add), 0.5)
      const Node* m2 = c.sole(m1->outputs[0], &k);
      if (!is(m2, "Mul", 2) || (q.half = other(*m2, m1->outputs[0])).empty()) continue;
      q.nodes.push_back(k);
      q.y = m2->outputs[0];
    } else {  // Hugging Face order: Mul(Mul(x, 0.5), add)
      const Node* h = nullptr;
      for (const Node& n : m.nodes)
        if (n.outputs.size() == 1 && n.outputs[0] == f) h = &n;
      size_t kh = 0;
      if (!is(h, "Mul", 2) || c.sole(f, &kh) != m1 || (q.half = other(*h, q.x)).empty()) continue;
      q.nodes.push_back(index_of(m, h));
      q.y = m1->outputs[0];
    }
    std::sort(q.nodes.begin(), q.nodes.end());
    if (m.nodes[q.nodes.back()].outputs[0] != q.y) continue;
    *p = std::move(q);
    return true;
  }
  return false;
}

// The node producing `v`, or nullptr.
const Node* producer(const Model& m, const std::string& v) {
  for (const Node& n : m.nodes)
    if (n.outputs.size() == 1 && n.outputs[0] == v) return &n;
  return nullptr;
}

// Extends a matched attention `q` to the packed form (fuse_patterns.h) where the graph has it; leaves it as it is
// otherwise. The structure only: perms, shapes and indices are checked at lowering.
void find_packed_qkv(const Model& m, const Consumers& c, PatternMatch* q) {
  const std::string qkvs[3] = {q->x, q->w, q->b};
  const Node* gathers[3];
  for (int j = 0; j < 3; ++j) {
    gathers[j] = producer(m, qkvs[j]);
    if (!is(gathers[j], "Gather", 2) || c.is_output(qkvs[j]) || c.of(qkvs[j]).size() != 1) return;
    for (const auto& [name, a] : gathers[j]->attrs)
      if (name == "axis" && (a.kind != Attribute::Kind::Int || a.i != 0)) return;
    if (j > 0 && gathers[j]->inputs[0] != gathers[0]->inputs[0]) return;
  }
  const std::string t = gathers[0]->inputs[0];
  const Node* tr = producer(m, t);
  if (!is(tr, "Transpose", 1) || c.is_output(t) || c.of(t).size() != 3) return;
  const Node* rs = producer(m, tr->inputs[0]);
  size_t k = 0;
  if (!is(rs, "Reshape", 2) || c.sole(tr->inputs[0], &k) != tr) return;
  const Node* mt = c.sole(q->y, &k);
  if (!is(mt, "Transpose", 1)) return;
  const size_t mt_i = k;
  const Node* mr = c.sole(mt->outputs[0], &k);
  if (!is(mr, "Reshape", 2) || mr->inputs[0] != mt->outputs[0]) return;
  PatternMatch e = *q;
  e.qkv = rs->inputs[0], e.qkv_shape = rs->inputs[1], e.out_shape = mr->inputs[1];
  for (int j = 0; j < 3; ++j) {
    e.gather_idx[j] = gathers[j]->inputs[1];
    e.nodes.push_back(index_of(m, gathers[j]));
  }
  e.split_t = index_of(m, tr), e.merge_t = mt_i;
  e.nodes.insert(e.nodes.end(), {index_of(m, rs), e.split_t, mt_i, k});
  e.y = mr->outputs[0];
  std::sort(e.nodes.begin(), e.nodes.end());
  if (std::adjacent_find(e.nodes.begin(), e.nodes.end()) != e.nodes.end() || m.nodes[e.nodes.back()].outputs[0] != e.y) return;
  *q = std::move(e);
}

bool find_attention(const Model& m, const Consumers& c, size_t i, PatternMatch* p) {
  const Node& qk = m.nodes[i];
  if (!is(&qk, "MatMul", 2)) return false;
  const Node* kt = nullptr;
  for (const Node& n : m.nodes)
    if (n.outputs.size() == 1 && n.outputs[0] == qk.inputs[1]) kt = &n;
  size_t k = 0;
  if (!is(kt, "Transpose", 1) || c.sole(kt->outputs[0], &k) != &qk) return false;
  PatternMatch q;
  q.kind = PatternMatch::Kind::Attention;
  q.x = qk.inputs[0], q.w = kt->inputs[0];
  q.nodes = {index_of(m, kt), i};
  q.key_t = index_of(m, kt);
  std::string s = qk.outputs[0];
  const Node* n = c.sole(s, &k);
  if (is(n, "Mul", 2) || is(n, "Div", 2)) {
    if ((q.scale = scaled_by(n, s, true)).empty()) return false;
    q.scale_is_mul = n->op_type == "Mul";
    q.nodes.push_back(k);
    s = n->outputs[0];
    n = c.sole(s, &k);
  }
  if (!is(n, "Softmax", 1)) return false;
  q.nodes.push_back(k);
  const Node* pv = c.sole(n->outputs[0], &k);
  if (!is(pv, "MatMul", 2) || pv->inputs[0] != n->outputs[0]) return false;
  q.nodes.push_back(k);
  q.b = pv->inputs[1], q.y = pv->outputs[0];
  std::sort(q.nodes.begin(), q.nodes.end());
  if (m.nodes[q.nodes.back()].outputs[0] != q.y) return false;
  find_packed_qkv(m, c, &q);
  *p = std::move(q);
  return true;
}

// A host-known float scalar (one element, rank <= `rank`) within 1e-6 relative of `want`.
bool scalar_is(Lowering& l, const std::string& name, double want, size_t rank) {
  auto it = l.vals.find(name);
  if (it == l.vals.end() || !it->second.host || it->second.dims.size() > rank) return false;
  const auto v = host_scalar(l, name);
  return v && std::fabs(*v - want) <= 1e-6 * std::fabs(want);
}

const Val* device_float(Lowering& l, const std::string& name) {
  auto it = l.vals.find(name);
  return it == l.vals.end() || it->second.host || it->second.type != ElemType::Float ? nullptr : &it->second;
}

bool lower_linear(Lowering& l, const PatternMatch& p) {
  const Val* x = device_float(l, p.x);
  auto w = l.vals.find(p.w), b = l.vals.find(p.b);
  if (!x || x->dims.size() < 2 || w == l.vals.end() || b == l.vals.end()) return false;
  if (!w->second.host || !w->second.host->is_float() || w->second.dims.size() != 2) return false;
  if (!b->second.host || !b->second.host->is_float() || b->second.dims.size() > x->dims.size()) return false;
  const int64_t K = w->second.dims[0], N = w->second.dims[1];
  Dims bd = b->second.dims;
  while (!bd.empty() && bd.front() == 1 && bd != Dims{N}) bd.erase(bd.begin());
  if (x->dims.back() != K || bd != Dims{N}) return false;
  const int64_t rows = numel(x->dims) / std::max<int64_t>(K, 1);
  Dims od = x->dims;
  od.back() = N;
  const HostTensor& bh = *b->second.host;
  std::vector<float> bias(static_cast<size_t>(N));
  for (size_t j = 0; j < bias.size(); ++j) bias[j] = float(bh.at(j));
  const ValueId bv = l.constant_f32(l.label("bias"), {N}, std::move(bias));
  const ValueId xv = l.view(l.gpu_of(*x, p.x), {rows, K});
  const ValueId y = l.emit("aten.addmm.default", {bv, xv, l.gpu_of(w->second, p.w), l.g.real(1.0), l.g.real(1.0)}, {rows, N}, "linear");
  l.set_gpu(0, l.view(y, od), od);
  return true;
}

// Node n's Transpose perm is `want`.
bool perm_is(const Node& n, const std::vector<int64_t>& want) {
  for (const auto& [name, a] : n.attrs)
    if (name == "perm" && a.kind == Attribute::Kind::Ints) return a.ints == want;
  return false;
}

// The attention's score scale when its rank-r conditions hold (key Transpose swapping the last two axes, Softmax
// over the last axis, a host-known positive scale), else nullopt.
std::optional<double> attention_scale(Lowering& l, const PatternMatch& p, size_t r) {
  std::vector<int64_t> want(r);
  for (size_t j = 0; j < r; ++j) want[j] = int64_t(j);
  std::swap(want[r - 1], want[r - 2]);
  if (!perm_is(l.model.nodes[p.key_t], want)) return std::nullopt;
  const Node* sm = nullptr;
  for (size_t j : p.nodes)
    if (l.model.nodes[j].op_type == "Softmax") sm = &l.model.nodes[j];
  int64_t axis = l.opset() >= 13 ? -1 : 1;
  for (const auto& [name, a] : sm->attrs)
    if (name == "axis" && a.kind == Attribute::Kind::Int) axis = a.i;
  if (axis != int64_t(r) - 1 && axis != -1) return std::nullopt;
  if (p.scale.empty()) return 1.0;
  auto sv = l.vals.find(p.scale);
  const auto c = host_scalar(l, p.scale);
  if (sv == l.vals.end() || sv->second.dims.size() > r || !c || !std::isfinite(*c) || *c <= 0) return std::nullopt;
  return p.scale_is_mul ? *c : 1.0 / *c;
}

// A host-known integer shape resolved against input dims `in` as Reshape does (0 copies a dim, one -1 is
// inferred), or nullopt where it is not host-known or does not hold numel(in) elements.
std::optional<Dims> reshape_target(Lowering& l, const std::string& name, const Dims& in) {
  auto it = l.vals.find(name);
  if (it == l.vals.end() || !it->second.host || it->second.host->is_float()) return std::nullopt;
  Dims s = it->second.host->ints();
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == 0 && k < in.size()) s[k] = in[k];
    if (s[k] == -1 && infer < 0) infer = int64_t(k);
    else if (s[k] <= 0 || known > (int64_t(1) << 40) / s[k]) return std::nullopt;
    else known *= s[k];
  }
  if (infer >= 0) {
    if (numel(in) % known) return std::nullopt;
    s[size_t(infer)] = numel(in) / known;
  }
  if (numel(s) != numel(in)) return std::nullopt;
  return s;
}

bool lower_packed_attention(Lowering& l, const PatternMatch& p) {
  const Val* x = device_float(l, p.qkv);
  if (!x || x->dims.size() != 3) return false;
  const auto s5 = reshape_target(l, p.qkv_shape, x->dims);
  if (!s5 || s5->size() != 5 || (*s5)[0] != x->dims[0] || (*s5)[1] != x->dims[1] || (*s5)[2] != 3) return false;
  const int64_t B = x->dims[0], S = x->dims[1], H = (*s5)[3], D = (*s5)[4];
  if (!perm_is(l.model.nodes[p.split_t], {2, 0, 3, 1, 4}) || !perm_is(l.model.nodes[p.merge_t], {0, 2, 1, 3})) return false;
  for (int j = 0; j < 3; ++j) {
    auto it = l.vals.find(p.gather_idx[j]);
    if (it == l.vals.end() || !it->second.host || it->second.host->is_float() || !it->second.dims.empty() ||
        it->second.host->ints() != std::vector<int64_t>{j})
      return false;
  }
  const auto merged = reshape_target(l, p.out_shape, {B, S, H, D});
  if (!merged || *merged != Dims{B, S, H * D}) return false;
  const auto scale = attention_scale(l, p, 4);
  if (!scale) return false;
  const Dims od{B, S, H * D};
  l.set_gpu(0, l.emit("wgrt.sdpa_qkv.default", {l.gpu_of(*x, p.qkv), l.g.int_value(H), l.g.real(*scale)}, od, "sdpa"), od);
  return true;
}

bool lower_attention(Lowering& l, const PatternMatch& p) {
  if (!p.qkv.empty()) return lower_packed_attention(l, p);
  const Val* q = device_float(l, p.x);
  const Val* k = device_float(l, p.w);
  const Val* v = device_float(l, p.b);
  if (!q || !k || !v) return false;
  const size_t r = q->dims.size();
  if ((r != 3 && r != 4) || k->dims.size() != r || v->dims.size() != r) return false;
  const Dims lead(q->dims.begin(), q->dims.end() - 2);
  if (Dims(k->dims.begin(), k->dims.end() - 2) != lead || Dims(v->dims.begin(), v->dims.end() - 2) != lead) return false;
  const int64_t Sq = q->dims[r - 2], D = q->dims[r - 1], Skv = k->dims[r - 2], Dv = v->dims[r - 1];
  if (k->dims[r - 1] != D || v->dims[r - 2] != Skv) return false;
  const auto scale = attention_scale(l, p, r);
  if (!scale) return false;
  const int64_t B = lead[0], H = r == 4 ? lead[1] : 1;
  const ValueId o = l.emit("et_vk.sdpa.default",
                           {l.view(l.gpu_of(*q, p.x), {B, H, Sq, D}), l.view(l.gpu_of(*k, p.w), {B, H, Skv, D}),
                            l.view(l.gpu_of(*v, p.b), {B, H, Skv, Dv}), l.g.none(), l.g.real(*scale)},
                           {B, H, Sq, Dv}, "sdpa");
  Dims od = lead;
  od.insert(od.end(), {Sq, Dv});
  l.set_gpu(0, l.view(o, od), od);
  return true;
}

bool lower_gelu(Lowering& l, const PatternMatch& p) {
  const Val* x = device_float(l, p.x);
  if (!x) return false;
  const size_t r = x->dims.size();
  const double s = p.scale_is_mul ? std::sqrt(0.5) : std::sqrt(2.0);
  if (!scalar_is(l, p.scale, s, r) || !scalar_is(l, p.one, 1.0, r) || !scalar_is(l, p.half, 0.5, r)) return false;
  l.set_gpu(0, l.emit("aten.gelu.default", {l.gpu_of(*x, p.x), l.g.string("none")}, x->dims, "gelu"), x->dims);
  return true;
}

}  // namespace

std::vector<PatternMatch> find_patterns(const Model& m) {
  const Consumers c(m);
  std::vector<PatternMatch> out;
  std::set<size_t> taken;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    PatternMatch p;
    if (!find_attention(m, c, i, &p) && !find_linear(m, c, i, &p) && !find_gelu(m, c, i, &p)) continue;
    if (std::any_of(p.nodes.begin(), p.nodes.end(), [&](size_t k) { return taken.count(k) > 0; })) continue;
    taken.insert(p.nodes.begin(), p.nodes.end());
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const PatternMatch& a, const PatternMatch& b) { return a.nodes.back() < b.nodes.back(); });
  return out;
}

bool try_fused_pattern(Lowering& l, const PatternMatch& p) {
  switch (p.kind) {
    case PatternMatch::Kind::Linear: return lower_linear(l, p);
    case PatternMatch::Kind::Gelu: return lower_gelu(l, p);
    case PatternMatch::Kind::Attention: return lower_attention(l, p);
  }
  return false;
}

}  // namespace wgrt::onnx
