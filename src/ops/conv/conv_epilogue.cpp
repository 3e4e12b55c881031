#include "ops/conv/conv_epilogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "wgrt/error.h"

namespace wgrt::ops {

namespace {

struct OpName {
  EpilogueOp op;
  const char* name;
  int consts;
};
constexpr OpName kOps[] = {
    {EpilogueOp::Mul, "mul", 1},         {EpilogueOp::Add, "add", 1},       {EpilogueOp::Div, "div", 1},
    {EpilogueOp::RDiv, "rdiv", 1},       {EpilogueOp::RSub, "rsub", 1},     {EpilogueOp::Clip, "clip", 2},
    {EpilogueOp::Relu, "relu", 0},       {EpilogueOp::Sigmoid, "sigmoid", 0}, {EpilogueOp::HardSigmoid, "hard_sigmoid", 2},
    {EpilogueOp::Save, "save", 0},       {EpilogueOp::MulSaved, "mul_saved", 0}, {EpilogueOp::Tanh, "tanh", 0},
};

const OpName& info(EpilogueOp op) {
  for (const auto& o : kOps)
    if (o.op == op) return o;
  throw InvalidArgument(fmt::format("epilogue: unknown opcode {}", unsigned(op)));
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t e = s.find(sep, pos);
    out.push_back(s.substr(pos, e == std::string::npos ? std::string::npos : e - pos));
    if (e == std::string::npos) return out;
    pos = e + 1;
  }
}

float parse_float(const std::string& t, const std::string& step) {
  // strtof, not std::from_chars: the browser build's libc++ 14 has no floating-point from_chars. The "C" locale
  // (wgrt never calls setlocale) makes '.' the decimal point; leading spaces, which strtof would skip, are refused.
  char* end = nullptr;
  const float v = t.empty() || std::isspace(static_cast<unsigned char>(t[0])) ? 0.0f : std::strtof(t.c_str(), &end);
  if (end == nullptr || end != t.c_str() + t.size() || !std::isfinite(v))
    throw InvalidArgument(fmt::format("epilogue step '{}': '{}' is not a finite number", step, t));
  return v;
}

}  // namespace

std::string format_epilogue(const std::vector<EpilogueStep>& steps) {
  std::string out;
  for (const auto& s : steps) {
    const OpName& o = info(s.op);
    if (!out.empty()) out += ';';
    out += o.name;
    if (o.consts >= 1) out += fmt::format(":{}", s.a);
    if (o.consts >= 2) out += fmt::format(":{}", s.b);
  }
  return out;
}

std::vector<EpilogueStep> parse_epilogue(const std::string& text) {
  std::vector<EpilogueStep> steps;
  if (text.empty()) return steps;
  for (const std::string& step : split(text, ';')) {
    const auto parts = split(step, ':');
    const auto it = std::find_if(std::begin(kOps), std::end(kOps), [&](const OpName& o) { return parts[0] == o.name; });
    if (it == std::end(kOps)) throw InvalidArgument(fmt::format("epilogue step '{}': unknown operation", step));
    if (int(parts.size()) != 1 + it->consts)
      throw InvalidArgument(fmt::format("epilogue step '{}': {} takes {} constant(s)", step, it->name, it->consts));
    EpilogueStep s{it->op};
    if (it->consts >= 1) s.a = parse_float(parts[1], step);
    if (it->consts >= 2) s.b = parse_float(parts[2], step);
    steps.push_back(s);
  }
  if (steps.size() > kMaxEpilogueSteps)
    throw InvalidArgument(fmt::format("epilogue '{}': {} steps, at most {}", text, steps.size(), kMaxEpilogueSteps));
  return steps;
}

std::vector<std::pair<std::string, double>> epilogue_constants(const std::vector<EpilogueStep>& steps) {
  std::vector<std::pair<std::string, double>> c;
  for (size_t k = 0; k < steps.size(); ++k) {
    c.emplace_back(fmt::format("EPI_OP{}", k), double(unsigned(steps[k].op)));
    if (steps[k].a != 0) c.emplace_back(fmt::format("EPI_A{}", k), double(steps[k].a));
    if (steps[k].b != 0) c.emplace_back(fmt::format("EPI_B{}", k), double(steps[k].b));
  }
  return c;
}

float apply_epilogue(const std::vector<EpilogueStep>& steps, float v) {
  float s = 0;
  for (const auto& st : steps) {
    switch (st.op) {
      case EpilogueOp::Mul: v = v * st.a; break;
      case EpilogueOp::Add: v = v + st.a; break;
      case EpilogueOp::Div: v = v / st.a; break;
      case EpilogueOp::RDiv: v = st.a / v; break;
      case EpilogueOp::RSub: v = st.a - v; break;
      case EpilogueOp::Clip: v = std::min(std::max(v, st.a), st.b); break;
      case EpilogueOp::Relu: v = std::max(v, 0.0f); break;
      case EpilogueOp::Sigmoid: v = 1.0f / (1.0f + std::exp(-v)); break;
      case EpilogueOp::HardSigmoid: v = std::clamp(st.a * v + st.b, 0.0f, 1.0f); break;
      case EpilogueOp::Save: s = v; break;
      case EpilogueOp::MulSaved: v = v * s; break;
      case EpilogueOp::Tanh: v = std::tanh(v); break;
    }
  }
  return v;
}

}  // namespace wgrt::ops
