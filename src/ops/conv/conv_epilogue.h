// The fused epilogue of the convolution kernels: a short program of elementwise steps applied to every output
// value after the bias, in the kernel's store (conv_epilogue.wgsl), instead of one dispatch (a full read and
// write of the output) per step. The graph pass fuse_conv_epilogues (conv_fusion.cpp) builds it from the
// elementwise nodes that follow a convolution; the op wgrt.convolution_epilogue.default carries it as a
// string argument (conv.cpp).
//
// Text form (the graph argument): steps separated by ';', each "name" or "name:a" or "name:a:b" with floats
// in shortest round-trip form, e.g. "mul:0.5;add:3;clip:0:6". Names and meanings (v = the running value,
// s = a saved value): mul v*a, add v+a, div v/a, rdiv a/v, rsub a-v, clip min(max(v, a), b), relu max(v, 0),
// sigmoid 1/(1+exp(-v)), hard_sigmoid clamp(a*v + b, 0, 1), save s = v, mul_saved v*s, tanh.
// At most kMaxEpilogueSteps steps. Errors: InvalidArgument naming the bad step. Thread-safe (pure functions).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace wgrt::ops {

// Opcodes as in conv_epilogue.wgsl (0 ends the program).
enum class EpilogueOp : unsigned { Mul = 1, Add, Div, RDiv, RSub, Clip, Relu, Sigmoid, HardSigmoid, Save, MulSaved, Tanh };

struct EpilogueStep {
  EpilogueOp op;
  float a = 0, b = 0;
  bool operator==(const EpilogueStep&) const = default;
};

constexpr size_t kMaxEpilogueSteps = 10;  // EPI_OP0..EPI_OP9 in conv_epilogue.wgsl

std::string format_epilogue(const std::vector<EpilogueStep>& steps);
std::vector<EpilogueStep> parse_epilogue(const std::string& text);
// The WGSL override constants (EPI_OPk, EPI_Ak, EPI_Bk) of a program.
std::vector<std::pair<std::string, double>> epilogue_constants(const std::vector<EpilogueStep>& steps);
// The program applied to one value on the host (the reference of the tests; float arithmetic as the kernel).
float apply_epilogue(const std::vector<EpilogueStep>& steps, float v);

}  // namespace wgrt::ops
