#include "ops/conv/conv_fusion.h"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "graph/graph.h"
#include "ops/conv/conv_epilogue.h"

namespace wgrt::ops {

namespace {

constexpr const char* kConv = "aten.convolution.default";
constexpr const char* kConvEpi = "wgrt.convolution_epilogue.default";
constexpr const char* kBatchNorm = "aten._native_batch_norm_legit_no_training.default";

class Fuser {
 public:
  explicit Fuser(Graph& g) : g_(g) {
    for (size_t i = 0; i < g.nodes().size(); ++i)
      for (ValueId a : g.nodes()[i].args) {
        if (a == g.nodes()[i].args.back()) continue;  // the node's output (written, not read)
        users_[a].insert(i);
        if (auto* l = std::get_if<ValueList>(&g.value(a)))  // tensors inside a list argument (aten.cat)
          for (ValueId m : l->ids) users_[m].insert(i);
      }
  }

  ConvFusionStats run() {
    for (size_t i = 0; i < g_.nodes().size(); ++i)
      if (g_.nodes()[i].op == kConv && !removed_.count(i)) fuse_at(i);
    std::vector<Node> kept;
    for (size_t i = 0; i < g_.nodes().size(); ++i)
      if (!removed_.count(i)) kept.push_back(std::move(g_.nodes()[i]));
    stats_.nodes_removed = g_.nodes().size() - kept.size();
    g_.nodes() = std::move(kept);
    return stats_;
  }

 private:
  Graph& g_;
  std::map<ValueId, std::set<size_t>> users_;
  std::set<size_t> removed_;
  ConvFusionStats stats_;

  const TensorValue* tensor(ValueId id) const { return std::get_if<TensorValue>(&g_.value(id)); }
  std::set<size_t> live_users(ValueId id) const {
    std::set<size_t> u;
    auto it = users_.find(id);
    if (it != users_.end())
      for (size_t n : it->second)
        if (!removed_.count(n)) u.insert(n);
    return u;
  }
  // An intermediate f32 tensor that the chain may absorb (not an output, not a view's source).
  bool internal(ValueId id) const {
    const TensorValue* t = tensor(id);
    return t && t->role == TensorRole::Intermediate && !t->is_output && t->dtype == DType::F32;
  }
  std::optional<double> number(ValueId id) const {
    const Value& v = g_.value(id);
    if (auto* d = std::get_if<double>(&v)) return *d;
    if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
    return std::nullopt;
  }
  const float* constant_f32(ValueId id, int64_t n) const {
    const TensorValue* t = tensor(id);
    if (!t || t->role != TensorRole::Constant || t->dtype != DType::F32 || numel(t->max_dims) != n || !t->constant.data ||
        t->constant.bytes != size_t(n) * 4)
      return nullptr;
    return static_cast<const float*>(t->constant.data);
  }
  std::optional<float> scalar(ValueId id) const {
    const float* p = constant_f32(id, 1);
    if (!p || !std::isfinite(*p)) return std::nullopt;
    return *p;
  }

  // Node n as one epilogue step on tensor cur: the step and n's output.
  std::optional<std::pair<EpilogueStep, ValueId>> step_of(size_t n, ValueId cur) const {
    const Node& nd = g_.nodes()[n];
    const auto& a = nd.args;
    if (a.empty()) return std::nullopt;
    const ValueId out = a.back();
    const TensorValue* to = tensor(out);
    const TensorValue* tc = tensor(cur);
    if (!to || !tc || to->dtype != DType::F32 || to->max_dims != tc->max_dims) return std::nullopt;
    std::optional<EpilogueStep> s;
    const std::string& op = nd.op;
    if ((op == "aten.relu.default" || op == "aten.sigmoid.default" || op == "aten.tanh.default") && a.size() == 2 && a[0] == cur) {
      s = EpilogueStep{op == "aten.relu.default" ? EpilogueOp::Relu : op == "aten.sigmoid.default" ? EpilogueOp::Sigmoid : EpilogueOp::Tanh};
    } else if (op == "wgrt.hard_sigmoid.default" && a.size() == 4 && a[0] == cur) {
      auto al = number(a[1]), be = number(a[2]);
      if (al && be) s = EpilogueStep{EpilogueOp::HardSigmoid, float(*al), float(*be)};
    } else if (op == "aten.clamp.default" && a.size() == 4 && a[0] == cur) {
      auto lo = number(a[1]), hi = number(a[2]);
      if (lo && hi && std::isfinite(*lo) && std::isfinite(*hi)) s = EpilogueStep{EpilogueOp::Clip, float(*lo), float(*hi)};
    } else if ((op == "aten.mul.Tensor" || op == "aten.div.Tensor") && a.size() == 3 && (a[0] == cur) != (a[1] == cur)) {
      const bool first = a[0] == cur;
      if (auto c = scalar(first ? a[1] : a[0])) {
        if (op == "aten.mul.Tensor") s = EpilogueStep{EpilogueOp::Mul, *c};
        else s = EpilogueStep{first ? EpilogueOp::Div : EpilogueOp::RDiv, *c};
      }
    } else if ((op == "aten.add.Tensor" || op == "aten.sub.Tensor") && a.size() == 4 && (a[0] == cur) != (a[1] == cur)) {
      const bool first = a[0] == cur, add = op == "aten.add.Tensor";
      auto c = scalar(first ? a[1] : a[0]);
      auto alpha = number(a[2]);
      if (c && alpha) {
        // add: a + alpha*b; sub: a - alpha*b. With the conv value second, only alpha == 1.
        if (first) s = EpilogueStep{EpilogueOp::Add, float((add ? 1.0 : -1.0) * *alpha * double(*c))};
        else if (*alpha == 1.0) s = add ? EpilogueStep{EpilogueOp::Add, *c} : EpilogueStep{EpilogueOp::RSub, *c};
      }
    }
    if (!s) return std::nullopt;
    return std::pair{*s, out};
  }

  bool transposed(const Node& conv) const {
    const bool* t = std::get_if<bool>(&g_.value(conv.args[6]));
    return t == nullptr || *t;  // unknown: treated as transposed (no batch-norm fold)
  }
  // The conv's bias as a vector of O values (zeros without one), or nullopt if it is not a constant.
  std::optional<std::vector<float>> bias_values(const Node& conv, int64_t O) const {
    if (tensor(conv.args[2]) == nullptr) return std::vector<float>(size_t(O), 0.0f);
    const float* b = constant_f32(conv.args[2], O);
    if (!b) return std::nullopt;
    return std::vector<float>(b, b + O);
  }
  void set_bias(Node& conv, std::vector<float> b, const std::string& name) {
    const int64_t O = int64_t(b.size());
    conv.args[2] = g_.constant(name, DType::F32, {O}, ConstantData::from_vector(std::move(b)));
  }

  // Folds a following add (or subtract) of a per-channel constant ([O, 1, 1] or [1, O, 1, 1], broadcast over the
  // conv's [N, O, H, W] output) into the conv's bias; returns the new output.
  ValueId fold_channel_add(Node& conv, ValueId cur) {
    const auto u = live_users(cur);
    const TensorValue* tc = tensor(cur);
    if (u.size() != 1 || !internal(cur) || tc->max_dims.size() != 4) return cur;
    const size_t n = *u.begin();
    const Node nd = g_.nodes()[n];
    const bool add = nd.op == "aten.add.Tensor", sub = nd.op == "aten.sub.Tensor";
    if ((!add && !sub) || nd.args.size() != 4 || (nd.args[0] == cur) == (nd.args[1] == cur)) return cur;
    const bool first = nd.args[0] == cur;
    const ValueId cid = first ? nd.args[1] : nd.args[0];
    const int64_t O = tc->max_dims[1];
    const TensorValue* ct = tensor(cid);
    const float* c = constant_f32(cid, O);
    auto alpha = number(nd.args[2]);
    const TensorValue* to = tensor(nd.args[3]);
    if (!ct || !c || !alpha || !to || to->max_dims != tc->max_dims) return cur;
    if (ct->max_dims != Dims{O, 1, 1} && ct->max_dims != Dims{1, O, 1, 1}) return cur;
    if (!first && (sub || *alpha != 1.0)) return cur;  // c + alpha * y, c - alpha * y: only c + y folds
    auto b = bias_values(conv, O);
    if (!b) return cur;
    const double k = (sub ? -1.0 : 1.0) * (first ? *alpha : 1.0);
    for (int64_t o = 0; o < O; ++o) (*b)[size_t(o)] = float(double((*b)[size_t(o)]) + k * double(c[o]));
    set_bias(conv, std::move(*b), tensor(conv.args[1])->name + ".bias_added");
    conv.args[9] = nd.args[3];
    removed_.insert(n);
    ++stats_.channel_adds_folded;
    return nd.args[3];
  }

  // Folds a following batch norm into the conv's weight and bias; returns the new output. The weight is
  // [O, C/groups, kh, kw] (output channel o = the first index) or, transposed, [C, O/groups, kh, kw] (o = the
  // group of input channel c times O/groups plus the second index).
  ValueId fold_batch_norm(Node& conv, ValueId cur) {
    const auto u = live_users(cur);
    if (u.size() != 1 || !internal(cur)) return cur;
    const size_t n = *u.begin();
    const Node bn = g_.nodes()[n];
    if (bn.op != kBatchNorm || bn.args.size() != 8 || bn.args[0] != cur) return cur;
    if (std::get_if<bool>(&g_.value(conv.args[6])) == nullptr) return cur;
    const bool tr = transposed(conv);
    const TensorValue* wt = tensor(conv.args[1]);
    const TensorValue* tc = tensor(cur);
    const int64_t* groups = std::get_if<int64_t>(&g_.value(conv.args[8]));
    if (!wt || wt->max_dims.size() != 4 || !tc || tc->max_dims.size() != 4 || !groups || *groups < 1) return cur;
    const int64_t O = tc->max_dims[1], khw = wt->max_dims[2] * wt->max_dims[3];
    const int64_t opg = tr ? wt->max_dims[1] : O, cpg = tr ? wt->max_dims[0] / *groups : 0;
    if ((tr ? opg * *groups : wt->max_dims[0]) != O) return cur;
    const int64_t total = numel(wt->max_dims);
    const float* w = constant_f32(conv.args[1], total);
    const float *gamma = constant_f32(bn.args[1], O), *beta = constant_f32(bn.args[2], O), *mean = constant_f32(bn.args[3], O),
                *var = constant_f32(bn.args[4], O);
    auto eps = number(bn.args[6]);
    auto b = bias_values(conv, O);
    const TensorValue* bo = tensor(bn.args[7]);
    if (!w || !b || !gamma || !beta || !mean || !var || !eps || !bo || bo->max_dims != tc->max_dims) return cur;
    std::vector<double> s(static_cast<size_t>(O));
    for (int64_t o = 0; o < O; ++o) s[size_t(o)] = double(gamma[o]) / std::sqrt(double(var[o]) + *eps);
    std::vector<float> nw(static_cast<size_t>(total));
    for (int64_t i = 0; i < total; ++i) {
      const int64_t row = i / khw;  // (o, c) or, transposed, (c, ol)
      const int64_t o = tr ? (row / opg / cpg) * opg + row % opg : row / (total / khw / O);
      nw[size_t(i)] = float(double(w[i]) * s[size_t(o)]);
    }
    for (int64_t o = 0; o < O; ++o)
      (*b)[size_t(o)] = float((double((*b)[size_t(o)]) - double(mean[o])) * s[size_t(o)] + double(beta[o]));
    const Dims wd = wt->max_dims;
    const std::string wname = wt->name + ".bn_folded";
    conv.args[1] = g_.constant(wname, DType::F32, wd, ConstantData::from_vector(std::move(nw)));
    set_bias(conv, std::move(*b), wname + ".bias");
    const ValueId out = bn.args[7];
    conv.args[9] = out;
    removed_.insert(n);
    ++stats_.batch_norms_folded;
    return out;
  }

  void fuse_at(size_t i) {
    Node& conv = g_.nodes()[i];
    if (conv.args.size() != 10) return;
    ValueId cur = fold_batch_norm(conv, fold_channel_add(conv, conv.args[9]));
    std::vector<EpilogueStep> steps;
    std::vector<size_t> absorbed;
    while (internal(cur)) {
      const auto u = live_users(cur);
      std::vector<size_t> group;
      std::vector<EpilogueStep> add;
      ValueId next = -1;
      if (u.size() == 1) {
        auto st = step_of(*u.begin(), cur);
        if (!st) break;
        add = {st->first};
        group = {*u.begin()};
        next = st->second;
      } else if (u.size() == 2) {  // x * f(x): one user multiplies cur by the end of a chain the other starts
        auto it = u.begin();
        size_t m = *it++, start = *it;
        auto is_mul_of = [&](size_t k) {
          const auto& a = g_.nodes()[k].args;
          return g_.nodes()[k].op == "aten.mul.Tensor" && a.size() == 3 && (a[0] == cur) != (a[1] == cur);
        };
        if (!is_mul_of(m)) std::swap(m, start);
        if (!is_mul_of(m)) break;
        const auto& ma = g_.nodes()[m].args;
        const ValueId f_end = ma[0] == cur ? ma[1] : ma[0];
        add = {EpilogueStep{EpilogueOp::Save}};
        ValueId c2 = cur;
        size_t k = start;
        bool ok = false;
        while (true) {
          auto st = step_of(k, c2);
          if (!st || !internal(st->second)) break;
          add.push_back(st->first);
          group.push_back(k);
          c2 = st->second;
          const auto u2 = live_users(c2);
          if (c2 == f_end) {
            ok = u2.size() == 1 && *u2.begin() == m;
            break;
          }
          if (u2.size() != 1) break;
          k = *u2.begin();
        }
        if (!ok) break;
        const TensorValue* mo = tensor(ma[2]);
        if (!mo || mo->max_dims != tensor(cur)->max_dims) break;
        add.push_back(EpilogueStep{EpilogueOp::MulSaved});
        group.push_back(m);
        next = ma[2];
      } else {
        break;
      }
      if (steps.size() + add.size() > kMaxEpilogueSteps) break;
      steps.insert(steps.end(), add.begin(), add.end());
      absorbed.insert(absorbed.end(), group.begin(), group.end());
      for (size_t k : group) removed_.insert(k);
      cur = next;
    }
    if (steps.empty()) {
      g_.nodes()[i].args[9] = cur;  // a folded batch norm only
      return;
    }
    Node& c = g_.nodes()[i];
    c.op = kConvEpi;
    c.args[9] = g_.string(format_epilogue(steps));
    c.args.push_back(cur);
    ++stats_.convs_with_epilogue;
  }
};

}  // namespace

ConvFusionStats fuse_conv_epilogues(Graph& g) { return Fuser(g).run(); }

}  // namespace wgrt::ops
