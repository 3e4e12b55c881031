// ONNX reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp; ArgMax/ArgMin on host values. Axes come from the attribute (or the
// input: ReduceSum from opset 13, the others from 18); keepdims default 1; noop_with_empty_axes default 0.
// On the device each reduced axis is one wgrt.reduce_axis dispatch (the modes compose over axes), then a
// view drops the kept dims when keepdims = 0.
#include <cmath>
#include <limits>

#include "models/onnx_graph/host_eval.h"
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

namespace {

struct Reduce {
  const char* onnx;
  const char* first;  // mode of the first axis
  const char* rest;   // mode of later axes
  const char* post;   // unary applied at the end ("" none)
};

const std::vector<Reduce>& reduces() {
  static const std::vector<Reduce> r = {
      {"ReduceSum", "sum", "sum", ""},           {"ReduceMean", "mean", "mean", ""},
      {"ReduceMax", "max", "max", ""},           {"ReduceMin", "min", "min", ""},
      {"ReduceProd", "prod", "prod", ""},        {"ReduceSumSquare", "sum_square", "sum", ""},
      {"ReduceL1", "sum_abs", "sum", ""},        {"ReduceL2", "sum_square", "sum", "aten.sqrt.default"},
      {"ReduceLogSum", "sum", "sum", "aten.log.default"}, {"ReduceLogSumExp", "log_sum_exp", "log_sum_exp", ""},
  };
  return r;
}

double host_reduce(const std::string& op, const std::vector<double>& v) {
  if (op == "ReduceMax" || op == "ReduceMin") {
    double a = op == "ReduceMax" ? -INFINITY : INFINITY;
    for (double x : v) {
      if (std::isnan(x)) return NAN;
      a = op == "ReduceMax" ? std::max(a, x) : std::min(a, x);
    }
    return a;
  }
  if (op == "ReduceProd") {
    double a = 1;
    for (double x : v) a *= x;
    return a;
  }
  if (op == "ReduceLogSumExp") {
    double m = -INFINITY, s = 0;
    for (double x : v) m = std::max(m, x);
    for (double x : v) s += std::exp(x - m);
    return m + std::log(s);
  }
  double s = 0;
  for (double x : v) s += op == "ReduceSumSquare" || op == "ReduceL2" ? x * x : op == "ReduceL1" ? std::fabs(x) : x;
  if (op == "ReduceMean") return v.empty() ? NAN : s / double(v.size());
  if (op == "ReduceL2") return std::sqrt(s);
  if (op == "ReduceLogSum") return std::log(s);
  return s;
}

void lower_reduce(Lowering& l) {
  const std::string op = l.node->op_type;
  const Reduce* r = nullptr;
  for (const auto& c : reduces())
    if (op == c.onnx) r = &c;
  l.known_attrs({"axes", "keepdims", "noop_with_empty_axes"});
  const bool axes_input = op == "ReduceSum" ? l.opset() >= 13 : l.opset() >= 18;
  std::vector<int64_t> axes = axes_input ? (l.has(1) ? l.host(1).ints() : std::vector<int64_t>{}) : l.attr_ints("axes");
  const bool keep = l.attr_int("keepdims", 1) != 0;
  const Dims& in = l.dims(0);
  if (axes.empty()) {
    if (l.attr_int("noop_with_empty_axes", 0)) {
      l.alias_output(0, 0);
      return;
    }
    for (size_t k = 0; k < in.size(); ++k) axes.push_back(int64_t(k));
  }
  std::vector<bool> red(in.size(), false);
  for (int64_t a : axes) red[size_t(l.axis(a, in.size()))] = true;
  Dims kd = in, od;
  for (size_t k = 0; k < in.size(); ++k) {
    if (red[k]) kd[k] = 1;
    if (!red[k] || keep) od.push_back(kd[k]);
  }
  if (l.is_host(0)) {
    const HostTensor& x = l.host(0);
    HostTensor out = host_floats(ElemType::Double, kd, std::vector<double>(size_t(numel(kd))));
    // Group every input element by its output index.
    std::vector<std::vector<double>> groups(out.f.size());
    std::vector<int64_t> c(in.size(), 0);
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t o = 0;
      for (size_t k = 0; k < in.size(); ++k) o = o * kd[k] + (red[k] ? 0 : c[k]);
      groups[size_t(o)].push_back(x.at(size_t(i)));
      for (size_t k = in.size(); k-- > 0;) {
        if (++c[k] < in[k]) break;
        c[k] = 0;
      }
    }
    for (size_t o = 0; o < groups.size(); ++o) out.f[o] = host_reduce(op, groups[o]);
    out.dims = od;
    l.set_host(0, out.cast(x.type));
    return;
  }
  if (in.empty()) {
    l.alias_output(0, 0);
    return;
  }
  ValueId x = l.gpu(0);
  Dims cur = in;
  bool first = true;
  for (size_t k = 0; k < in.size(); ++k) {
    if (!red[k]) continue;
    cur[k] = 1;
    x = l.emit("wgrt.reduce_axis.default", {x, l.g.int_value(int64_t(k)), l.g.string(first ? r->first : r->rest)}, cur, "reduce");
    first = false;
  }
  if (*r->post) x = l.emit(r->post, {x}, cur);
  if (od != cur) x = l.view(x, od);
  l.set_gpu(0, x, od);
}

void lower_arg(Lowering& l) {
  l.known_attrs({"axis", "keepdims", "select_last_index"});
  const HostTensor& x = l.host(0);
  const Dims& in = x.dims;
  const int64_t ax = l.axis(l.attr_int("axis", 0), in.size());
  const bool keep = l.attr_int("keepdims", 1) != 0, last = l.attr_int("select_last_index", 0) != 0;
  const bool mx = l.node->op_type == "ArgMax";
  const int64_t outer = numel(Dims(in.begin(), in.begin() + ax)), R = in[size_t(ax)], inner = numel(Dims(in.begin() + ax + 1, in.end()));
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t r = 1; r < R; ++r) {
        const double v = x.at(size_t((o * R + r) * inner + i)), b = x.at(size_t((o * R + best) * inner + i));
        if (mx ? (v > b || (last && v == b)) : (v < b || (last && v == b))) best = r;
      }
      out.push_back(best);
    }
  Dims od = in;
  if (keep) od[size_t(ax)] = 1;
  else od.erase(od.begin() + ax);
  l.set_host(0, host_ints(ElemType::Int64, od, out));
}

}  // namespace

std::vector<OpRule> reduce_rules() {
  std::vector<OpRule> r;
  for (const auto& c : reduces()) r.push_back({c.onnx, 1, lower_reduce});
  r.push_back({"ArgMax", 1, lower_arg});
  r.push_back({"ArgMin", 1, lower_arg});
  return r;
}

}  // namespace wgrt::onnx
