// ONNX elementwise operators: unary math and activations, NumPy-broadcasting binary arithmetic, comparisons
// and logic (host only), Where (host only), Clip, Cast, Identity, Dropout (inference), variadic Max/Min/Sum/
// Mean. Host-known inputs are folded on the host (any element type); device inputs must be float.
#include <cmath>
#include <functional>
#include <limits>

#include "models/onnx_graph/host_eval.h"
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

namespace {

using UFn = double (*)(double, float, float);

struct Unary {
  const char* onnx;
  const char* op;  // wgrt op
  int params;      // 0: (x, out); 2: (x, p0, p1, out); elu: (x, alpha, 1, 1, out); softplus: (x, 1, 20, out)
  UFn host;
  float p0 = 0, p1 = 0;  // attribute defaults
  const char* a0 = nullptr;
  const char* a1 = nullptr;
};

double erf_d(double v, float, float) { return std::erf(v); }
double sigm(double v, float, float) { return 1.0 / (1.0 + std::exp(-v)); }

const std::vector<Unary>& unaries() {
  static const std::vector<Unary> u = {
      {"Relu", "aten.relu.default", 0, [](double v, float, float) { return v > 0 ? v : 0.0; }},
      {"Sigmoid", "aten.sigmoid.default", 0, sigm},
      {"Tanh", "aten.tanh.default", 0, [](double v, float, float) { return std::tanh(v); }},
      {"Neg", "aten.neg.default", 0, [](double v, float, float) { return -v; }},
      {"Abs", "aten.abs.default", 0, [](double v, float, float) { return std::fabs(v); }},
      {"Exp", "aten.exp.default", 0, [](double v, float, float) { return std::exp(v); }},
      {"Log", "aten.log.default", 0, [](double v, float, float) { return std::log(v); }},
      {"Sqrt", "aten.sqrt.default", 0, [](double v, float, float) { return std::sqrt(v); }},
      {"Reciprocal", "aten.reciprocal.default", 0, [](double v, float, float) { return 1.0 / v; }},
      {"Erf", "aten.erf.default", 0, erf_d},
      {"Floor", "aten.floor.default", 0, [](double v, float, float) { return std::floor(v); }},
      {"Ceil", "aten.ceil.default", 0, [](double v, float, float) { return std::ceil(v); }},
      {"Round", "aten.round.default", 0, [](double v, float, float) { return std::nearbyint(v); }},
      {"Sign", "aten.sign.default", 0, [](double v, float, float) { return double((v > 0) - (v < 0)); }},
      {"Sin", "aten.sin.default", 0, [](double v, float, float) { return std::sin(v); }},
      {"Cos", "aten.cos.default", 0, [](double v, float, float) { return std::cos(v); }},
      {"Softsign", "wgrt.softsign.default", 0, [](double v, float, float) { return v / (1 + std::fabs(v)); }},
      {"Softplus", "aten.softplus.default", 3, [](double v, float, float) { return std::log1p(std::exp(v)); }},
      {"HardSwish", "aten.hardswish.default", 0,
       [](double v, float, float) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }},
      {"HardSigmoid", "wgrt.hard_sigmoid.default", 2,
       [](double v, float a, float b) { return std::clamp(a * v + b, 0.0, 1.0); }, 0.2f, 0.5f, "alpha", "beta"},
      {"LeakyRelu", "aten.leaky_relu.default", 1, [](double v, float a, float) { return v >= 0 ? v : a * v; }, 0.01f,
       0, "alpha"},
      {"Elu", "aten.elu.default", 4, [](double v, float a, float) { return v > 0 ? v : a * (std::exp(v) - 1); }, 1.0f,
       0, "alpha"},
      {"Selu", "wgrt.selu.default", 2,
       [](double v, float a, float g) { return g * (v > 0 ? v : a * (std::exp(v) - 1)); }, 1.67326319217681884765625f,
       1.05070102214813232421875f, "alpha", "gamma"},
  };
  return u;
}

void lower_unary(Lowering& l) {
  const Unary* u = nullptr;
  for (const auto& c : unaries())
    if (l.node->op_type == c.onnx) u = &c;
  std::vector<const char*> known;
  if (u->a0) known.push_back(u->a0);
  if (u->a1) known.push_back(u->a1);
  for (const auto& [k, v] : l.node->attrs) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) l.unsupported("attribute '{}' is not supported by wgrt", k);
  }
  const float p0 = u->a0 ? l.attr_float(u->a0, u->p0) : u->p0, p1 = u->a1 ? l.attr_float(u->a1, u->p1) : u->p1;
  if (l.is_host(0)) {
    const HostTensor& x = l.host(0);
    const std::string op = u->onnx;
    if (!x.is_float() && op != "Neg" && op != "Abs" && op != "Sign" && op != "Relu")
      l.unsupported("element type {} is not supported (float types only)", elem_name(x.type));
    HostTensor h = x.cast(ElemType::Double);
    for (double& v : h.f) v = u->host(v, p0, p1);
    l.set_host(0, h.cast(x.type));
    return;
  }
  ValueId x = l.gpu(0);
  auto& g = l.g;
  std::vector<ValueId> args = {x};
  if (u->params == 1) args.push_back(g.real(p0));
  if (u->params == 2) args.insert(args.end(), {g.real(p0), g.real(p1)});
  if (u->params == 3) args.insert(args.end(), {g.real(1.0), g.real(20.0)});
  if (u->params == 4) args.insert(args.end(), {g.real(p0), g.real(1.0), g.real(1.0)});
  l.set_gpu(0, l.emit(u->op, args, l.dims(0)), l.dims(0));
}

struct Binary {
  const char* onnx;
  const char* op;  // wgrt op ("" = host only)
  bool alpha;
  std::function<double(double, double)> f;
  std::function<int64_t(int64_t, int64_t)> fi;  // integer form (null: through double)
  bool logical = false;  // result is bool
};

int64_t ipow(int64_t a, int64_t b) {
  int64_t r = 1;
  for (int64_t k = 0; k < b && k < 64; ++k) r *= a;
  return b < 0 ? 0 : r;
}

const std::vector<Binary>& binaries() {
  static const std::vector<Binary> b = {
      {"Add", "aten.add.Tensor", true, std::plus<double>(), std::plus<int64_t>()},
      {"Sub", "aten.sub.Tensor", true, std::minus<double>(), std::minus<int64_t>()},
      {"Mul", "aten.mul.Tensor", false, std::multiplies<double>(), std::multiplies<int64_t>()},
      {"Div", "aten.div.Tensor", false, std::divides<double>(), [](int64_t a, int64_t b) { return b ? a / b : 0; }},
      {"Pow", "aten.pow.Tensor_Tensor", false, [](double a, double b) { return std::pow(a, b); }, ipow},
      {"Max", "aten.maximum.default", false, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); },
       [](int64_t a, int64_t b) { return std::max(a, b); }},
      {"Min", "aten.minimum.default", false, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); },
       [](int64_t a, int64_t b) { return std::min(a, b); }},
      {"Sum", "aten.add.Tensor", true, std::plus<double>(), std::plus<int64_t>()},
      {"Mean", "aten.add.Tensor", true, std::plus<double>(), std::plus<int64_t>()},
      {"Equal", "", false, [](double a, double b) { return double(a == b); }, [](int64_t a, int64_t b) -> int64_t { return a == b; }, true},
      {"Less", "", false, [](double a, double b) { return double(a < b); }, [](int64_t a, int64_t b) -> int64_t { return a < b; }, true},
      {"Greater", "", false, [](double a, double b) { return double(a > b); }, [](int64_t a, int64_t b) -> int64_t { return a > b; }, true},
      {"LessOrEqual", "", false, [](double a, double b) { return double(a <= b); }, [](int64_t a, int64_t b) -> int64_t { return a <= b; }, true},
      {"GreaterOrEqual", "", false, [](double a, double b) { return double(a >= b); }, [](int64_t a, int64_t b) -> int64_t { return a >= b; }, true},
      {"And", "", false, nullptr, [](int64_t a, int64_t b) -> int64_t { return a && b; }, true},
      {"Or", "", false, nullptr, [](int64_t a, int64_t b) -> int64_t { return a || b; }, true},
      {"Xor", "", false, nullptr, [](int64_t a, int64_t b) -> int64_t { return (a != 0) != (b != 0); }, true},
  };
  return b;
}

// Device binary with broadcasting (f32).
ValueId gpu_binary(Lowering& l, const Binary& b, ValueId x, const Dims& dx, ValueId y, const Dims& dy, Dims& out) {
  auto shape = broadcast_dims(dx, dy);
  if (!shape) l.fail("shapes {} and {} do not broadcast", dims_str(dx), dims_str(dy));
  out = *shape;
  std::vector<ValueId> args = {x, y};
  if (b.alpha) args.push_back(l.g.real(1.0));
  return l.emit(b.op, args, out);
}

void lower_binary(Lowering& l) {
  const Binary* b = nullptr;
  for (const auto& c : binaries())
    if (l.node->op_type == c.onnx) b = &c;
  const std::string op = l.node->op_type;
  const bool variadic = op == "Max" || op == "Min" || op == "Sum" || op == "Mean";
  if (op == "Div" || op == "Add" || op == "Sub" || op == "Mul" || op == "Pow" || variadic || b->logical) {
    if (l.opset() < 7 && l.has_attr("broadcast")) l.unsupported("legacy broadcast attribute (opset < 7) is not supported");
  }
  l.known_attrs({});
  const size_t n = l.num_inputs();
  if (n == 0) l.fail("needs at least one input");
  // Host-only ops, and integer operands (the device is f32-only): every input must be known at compile time.
  bool non_float = false;
  for (size_t i = 0; i < n; ++i) non_float = non_float || l.in(i).type != ElemType::Float;
  if (!*b->op || non_float)
    for (size_t i = 0; i < n; ++i) l.host(i);
  if (l.all_host()) {
    HostTensor acc = l.host(0);
    for (size_t i = 1; i < n; ++i) acc = host_binary(l, acc, l.host(i), b->f, b->fi, b->logical);
    if (op == "Mean") {
      HostTensor c = acc.cast(ElemType::Double);
      for (double& v : c.f) v /= double(n);
      acc = c.cast(acc.type);
    }
    l.set_host(0, acc);
    return;
  }
  if (!*b->op) l.unsupported("{} on device tensors is not supported (only on values known at load time)", op);
  ValueId acc = l.gpu(0);
  Dims dacc = l.dims(0);
  for (size_t i = 1; i < n; ++i) {
    Dims out;
    acc = gpu_binary(l, *b, acc, dacc, l.gpu(i), l.dims(i), out);
    dacc = out;
  }
  if (op == "Mean" && n > 1) {
    Dims out;
    ValueId s = l.constant_f32(l.label("1/n"), {}, {float(1.0 / double(n))});
    acc = gpu_binary(l, binaries()[2], acc, dacc, s, {}, out);
  }
  if (n == 1) {  // Max/Min/Sum/Mean of one input: a copy
    l.alias_output(0, 0);
    return;
  }
  l.set_gpu(0, acc, dacc);
}

void lower_not(Lowering& l) {
  HostTensor h = l.host(0);
  for (auto& v : h.i) v = !v;
  l.set_host(0, h);
}

void lower_where(Lowering& l) {
  l.set_host(0, host_where(l, l.host(0), l.host(1), l.host(2)));
}

void lower_clip(Lowering& l) {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (l.opset() < 11) {
    l.known_attrs({"min", "max"});
    lo = l.attr_float("min", lo);
    hi = l.attr_float("max", hi);
  } else {
    l.known_attrs({});
    if (l.has(1)) lo = float(l.host(1).at(0));
    if (l.has(2)) hi = float(l.host(2).at(0));
    if (l.is_host(0) && !l.host(0).is_float()) {  // integer Clip: exact bounds
      HostTensor h = l.host(0);
      for (int64_t& v : h.i) {
        if (l.has(1)) v = std::max(v, l.host(1).int_at(0));
        if (l.has(2)) v = std::min(v, l.host(2).int_at(0));
      }
      l.set_host(0, h);
      return;
    }
  }
  if (l.is_host(0)) {
    HostTensor h = l.host(0);
    if (h.is_float()) for (double& v : h.f) v = std::min(std::max(v, double(lo)), double(hi));
    else
      for (int64_t& v : h.i) {
        if (std::isfinite(lo)) v = std::max<int64_t>(v, int64_t(lo));
        if (std::isfinite(hi)) v = std::min<int64_t>(v, int64_t(hi));
      }
    l.set_host(0, h.cast(h.type));
    return;
  }
  ValueId x = l.gpu(0);
  l.set_gpu(0, l.emit("aten.clamp.default", {x, l.g.real(lo), l.g.real(hi)}, l.dims(0)), l.dims(0));
}

void lower_cast(Lowering& l) {
  l.known_attrs({"to", "saturate"});
  const ElemType to = ElemType(l.attr_int("to", 1));
  if (elem_size(to) == 0 || to == ElemType::Complex64 || to == ElemType::Complex128)
    l.unsupported("Cast to {} is not supported", elem_name(to));
  if (l.is_host(0)) {
    l.set_host(0, l.host(0).cast(to));
    return;
  }
  if (to != ElemType::Float) l.unsupported("Cast of a device tensor to {} is not supported (float only)", elem_name(to));
  l.alias_output(0, 0);
}

void lower_identity(Lowering& l) {
  if (l.node->op_type == "Dropout") {
    l.known_attrs({"seed", "ratio", "is_test"});
    if (l.has(2) && (!l.is_host(2) || l.host(2).int_at(0) != 0)) l.unsupported("training_mode = true is not supported");
    if (l.wants(1)) {
      HostTensor mask = host_ints(ElemType::Bool, l.dims(0), std::vector<int64_t>(size_t(numel(l.dims(0))), 1));
      l.set_host(1, mask);
    }
  } else {
    l.known_attrs({});
  }
  l.alias_output(0, 0);
}

}  // namespace

std::vector<OpRule> elementwise_rules() {
  std::vector<OpRule> r;
  for (const auto& u : unaries()) r.push_back({u.onnx, std::string(u.onnx) == "Softplus" || std::string(u.onnx) == "Softsign" ? 1 : 6, lower_unary});
  for (const auto& b : binaries()) r.push_back({b.onnx, 7, lower_binary});
  r.push_back({"Not", 1, lower_not});
  r.push_back({"Where", 9, lower_where});
  r.push_back({"Clip", 6, lower_clip});
  r.push_back({"Cast", 6, lower_cast});
  r.push_back({"Identity", 1, lower_identity});
  r.push_back({"Dropout", 7, lower_identity});
  return r;
}

}  // namespace wgrt::onnx
