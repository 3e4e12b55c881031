#include "models/onnx_graph/dynamic_dims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace wgrt::onnx {

namespace {

struct Use {
  const std::string* op;
  size_t arg;
};

// Every (op, argument index) that reads each value; list members count as a use by the list's op.
std::vector<std::vector<Use>> uses_of(const Graph& g) {
  std::vector<std::vector<Use>> u(g.values().size());
  for (const Node& n : g.nodes())
    for (size_t a = 0; a < n.args.size(); ++a) {
      const ValueId id = n.args[a];
      u[size_t(id)].push_back({&n.op, a});
      if (auto* vl = std::get_if<ValueList>(&g.values()[size_t(id)]))
        for (ValueId m : vl->ids) u[size_t(m)].push_back({&n.op, size_t(-1)});
    }
  return u;
}

// Int arguments whose op reads them in its resize hook only (copy_ops.cpp), so a SymInt may carry them.
bool live_int_use(const Use& u) {
  if (*u.op == "aten.slice_copy.Tensor") return u.arg == 2 || u.arg == 3;
  if (*u.op == "aten.select_copy.int") return u.arg == 2;
  return false;
}

bool all_uses(const std::vector<Use>& us, bool (*f)(const Use&)) {
  if (us.empty()) return false;
  for (const Use& u : us)
    if (!f(u)) return false;
  return true;
}

bool view_size_use(const Use& u) { return *u.op == "aten.view_copy.default" && u.arg == 1; }

uint64_t digest(const ConstantData& c) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ c.bytes;
  auto mix = [&](uint64_t w) {
    h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  };
  const auto* p = static_cast<const unsigned char*>(c.data);
  size_t i = 0;
  for (; i + 8 <= c.bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    mix(w);
  }
  uint64_t tail = 0;
  if (i < c.bytes) std::memcpy(&tail, p + i, c.bytes - i);
  mix(tail);
  return h | 1;  // never 0 (0 marks non-constants)
}

std::string tensor_name(const TensorValue& t, size_t i) { return t.name.empty() ? fmt::format("value {}", i) : "'" + t.name + "'"; }

}  // namespace

void DynamicPlan::merge(const DynamicPlan& o) {
  symints.insert(o.symints.begin(), o.symints.end());
  views.insert(o.views.begin(), o.views.end());
}

std::vector<uint64_t> constant_digests(const Graph& g) {
  std::vector<uint64_t> d(g.values().size(), 0);
  for (size_t i = 0; i < d.size(); ++i)
    if (auto* t = std::get_if<TensorValue>(&g.values()[i]); t && t->role == TensorRole::Constant) d[i] = digest(t->constant);
  return d;
}

DimsMatch match_dims(const Graph& built, const std::vector<uint64_t>& built_digests, const DynamicPlan& plan, const Graph& fresh) {
  DimsMatch m;
  auto differ = [&](std::string why) {
    if (m.mismatch.empty()) m.mismatch = std::move(why);
  };
  if (built.values().size() < fresh.values().size() || built.nodes().size() != fresh.nodes().size()) {
    differ(fmt::format("the lowered graph has {} values and {} nodes at these dims, {} and {} at the max dims",
                       fresh.values().size(), fresh.nodes().size(), built.values().size(), built.nodes().size()));
    return m;
  }
  for (size_t i = 0; i < built.nodes().size(); ++i) {
    const Node &a = built.nodes()[i], &b = fresh.nodes()[i];
    if (a.op != b.op || a.args != b.args) {
      differ(fmt::format("node {} is {} at these dims, {} at the max dims", i, b.op, a.op));
      return m;
    }
  }
  if (built.outputs() != fresh.outputs()) {
    differ("the graph outputs differ");
    return m;
  }
  const auto uses = uses_of(fresh);
  for (size_t i = 0; i < fresh.values().size(); ++i) {  // the built graph's extra values are the plan's SymInts
    const Value &va = built.values()[i], &vb = fresh.values()[i];
    const ValueId id = ValueId(i);
    if (auto* s = std::get_if<SymIntValue>(&va); s && plan.symints.count(id)) {
      if (auto* x = std::get_if<int64_t>(&vb)) m.symints.emplace_back(id, *x);
      else differ(fmt::format("value {} is a {}, the plan expects an int", i, value_kind(vb)));
      continue;
    }
    if (auto* l = std::get_if<ValueList>(&va); l && plan.views.count(id)) {
      auto* x = std::get_if<IntList>(&vb);
      if (x && x->size() == l->ids.size())
        for (size_t k = 0; k < x->size(); ++k) m.symints.emplace_back(l->ids[k], (*x)[k]);
      else differ(fmt::format("value {} is a {}, the plan expects a size list of {}", i, value_kind(vb), l->ids.size()));
      continue;
    }
    if (va.index() != vb.index()) {
      differ(fmt::format("value {} is a {} at these dims, a {} at the max dims", i, value_kind(vb), value_kind(va)));
      continue;
    }
    if (auto* ta = std::get_if<TensorValue>(&va)) {
      const TensorValue& tb = std::get<TensorValue>(vb);
      if (ta->dtype != tb.dtype || ta->role != tb.role || ta->max_dims.size() != tb.max_dims.size() || ta->infer_dims != tb.infer_dims) {
        differ(fmt::format("tensor {} changes dtype, role or rank", tensor_name(tb, i)));
      } else if (ta->role == TensorRole::Constant) {
        if (ta->max_dims != tb.max_dims || i >= built_digests.size() || built_digests[i] != digest(tb.constant)) differ(fmt::format("constant {} depends on the input dims", tensor_name(tb, i)));
      } else if (!ta->infer_dims) {
        for (size_t k = 0; k < tb.max_dims.size(); ++k)
          if (tb.max_dims[k] > ta->max_dims[k])
            differ(fmt::format("tensor {} has dims {} at these dims, above the {} of the max dims", tensor_name(tb, i),
                               dims_str(tb.max_dims), dims_str(ta->max_dims)));
        // A tensor no node reads or writes (left behind by a graph pass, e.g. conv_fusion's folded BatchNorm
        // input) has no buffer and no resize hook: nothing to follow.
        if (!uses[i].empty()) m.live_dims.emplace_back(id, tb.max_dims);
      }
    } else if (auto* ia = std::get_if<int64_t>(&va)) {
      if (*ia == std::get<int64_t>(vb)) continue;
      if (all_uses(uses[i], live_int_use)) m.grow.symints.insert(id);
      else differ(fmt::format("int value {} ({} at these dims, {} at the max dims) is read at build by {}", i,
                              std::get<int64_t>(vb), *ia, uses[i].empty() ? "no op" : *uses[i][0].op));
    } else if (auto* la = std::get_if<IntList>(&va)) {
      const IntList& lb = std::get<IntList>(vb);
      if (*la == lb) continue;
      if (la->size() == lb.size() && all_uses(uses[i], view_size_use)) m.grow.views.insert(id);
      else differ(fmt::format("int list value {} ({} at these dims, {} at the max dims) cannot follow the input dims", i,
                              dims_str(lb), dims_str(*la)));
    } else if (auto* da = std::get_if<double>(&va)) {
      if (*da != std::get<double>(vb)) differ(fmt::format("real value {} depends on the input dims", i));
    } else if (auto* ba = std::get_if<bool>(&va)) {
      if (*ba != std::get<bool>(vb)) differ(fmt::format("bool value {} depends on the input dims", i));
    } else if (auto* sa = std::get_if<std::string>(&va)) {
      if (*sa != std::get<std::string>(vb)) differ(fmt::format("string value {} depends on the input dims", i));
    } else if (auto* xa = std::get_if<ValueList>(&va)) {
      if (xa->ids != std::get<ValueList>(vb).ids) differ(fmt::format("value list {} differs", i));
    } else if (auto* sb = std::get_if<SymIntValue>(&va)) {
      if (sb->value != std::get<SymIntValue>(vb).value) differ(fmt::format("symint {} differs", i));
    }
  }
  return m;
}

void apply_plan(Graph& g, const DynamicPlan& plan) {
  auto& vals = g.values();
  for (ValueId id : plan.symints)
    if (auto* x = std::get_if<int64_t>(&vals.at(size_t(id)))) vals[size_t(id)] = SymIntValue{*x};
  for (ValueId id : plan.views) {
    auto* l = std::get_if<IntList>(&g.values().at(size_t(id)));
    if (!l) continue;
    const IntList sizes = *l;
    std::vector<ValueId> ids;
    for (int64_t v : sizes) ids.push_back(g.symint(v));  // appends: `l` may dangle from here on
    g.values()[size_t(id)] = ValueList{std::move(ids)};
  }
}

}  // namespace wgrt::onnx
