// Fused transformer-block ops against double references: wgrt.swiglu.default (out = silu(gate) * up, large
// |gate| without overflow in the sigmoid, odd H, changing rows; tolerance 1e-6 abs + 1e-5 rel), wgrt.geglu.default
// (gelu_tanh(gate) * up, same checks) and
// wgrt.add_rms_norm.default (below).
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;

namespace {

// op(x [rows, 2H]) against act(gate) * up over changing row counts, |gate| up to 100; |d| <= abs_tol + 1e-5 |ref|.
void check_glu(const char* op, double (*act)(double), double abs_tol) {
  const int64_t H = 37;
  Graph g;
  ValueId x = g.input("x", DType::F32, {5, 2 * H});
  ValueId y = g.tensor(DType::F32, {5, H});
  g.op(op, {x, y});
  g.output(y);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  for (int64_t rows : {5, 1, 3}) {
    std::vector<float> xv(size_t(rows * 2 * H));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float((int(i * 7919) % 401) - 200) * 0.05f;  // [-10, 10]
    xv[0] = 100.0f;
    xv[1] = -100.0f;
    exe->set_input(x, {rows, 2 * H}, std::span<const float>(xv));
    exe->execute();
    ASSERT_EQ(exe->dims(y), (Dims{rows, H}));
    auto out = exe->read_f32(y);
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t c = 0; c < H; ++c) {
        double gt = xv[size_t(m * 2 * H + c)], up = xv[size_t(m * 2 * H + H + c)];
        double e = act(gt) * up;
        EXPECT_NEAR(out[size_t(m * H + c)], e, abs_tol + 1e-5 * std::fabs(e)) << op << " " << m << "," << c;
      }
  }
}

}  // namespace

TEST(Swiglu, MatchesReferenceOnOddShapes) {
  check_glu("wgrt.swiglu.default", [](double v) { return v / (1.0 + std::exp(-v)); }, 1e-6);
}

// wgrt.geglu.default: out = gelu_tanh(gate) * up (Gemma's GeGLU); abs tolerance 1e-5 (WGSL tanh's accuracy,
// ~4e-6 relative on lavapipe).
TEST(Geglu, MatchesReferenceOnOddShapes) {
  check_glu("wgrt.geglu.default",
            [](double v) { return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v))); }, 1e-5);
}

TEST(Swiglu, OddLastDimIsAnError) {
  Graph g;
  ValueId x = g.input("x", DType::F32, {2, 7});
  g.op("wgrt.swiglu.default", {x, g.tensor(DType::F32, {2, 3})}, "bad_swiglu");
  EXPECT_THROW(ExecutableGraph::build(std::move(g), gpu()), InvalidArgument);
}

// wgrt.add_rms_norm.default: sum = x + residual; out = rms_norm(sum) * weight, against a double reference,
// with rows changing between executes. Tolerance 1e-5 abs + 1e-4 rel.
TEST(AddRmsNorm, MatchesReference) {
  const int64_t D = 300;
  Graph g;
  ValueId x = g.input("x", DType::F32, {4, D}), res = g.input("res", DType::F32, {4, D});
  std::vector<float> wv(static_cast<size_t>(D));
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = 0.5f + float(i % 7) * 0.1f;
  ValueId w = g.constant("w", DType::F32, {D}, ConstantData::from_vector(wv));
  ValueId sum = g.tensor(DType::F32, {4, D}), y = g.tensor(DType::F32, {4, D});
  g.op("wgrt.add_rms_norm.default", {x, res, w, g.real(1e-5), sum, y});
  g.output(sum);
  g.output(y);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  for (int64_t rows : {4, 1, 3}) {
    std::vector<float> xv(size_t(rows * D)), rv(xv.size());
    for (size_t i = 0; i < xv.size(); ++i) {
      xv[i] = float(int(i * 31 % 97) - 48) * 0.03f;
      rv[i] = float(int(i * 17 % 53) - 26) * 0.02f;
    }
    exe->set_input(x, {rows, D}, std::span<const float>(xv));
    exe->set_input(res, {rows, D}, std::span<const float>(rv));
    exe->execute();
    auto s = exe->read_f32(sum), o = exe->read_f32(y);
    for (int64_t r = 0; r < rows; ++r) {
      double ss = 0;
      for (int64_t i = 0; i < D; ++i) {
        double v = double(xv[size_t(r * D + i)]) + double(rv[size_t(r * D + i)]);
        ss += v * v;
      }
      double inv = 1.0 / std::sqrt(ss / double(D) + 1e-5);
      for (int64_t i = 0; i < D; ++i) {
        double v = double(xv[size_t(r * D + i)]) + double(rv[size_t(r * D + i)]);
        EXPECT_NEAR(s[size_t(r * D + i)], v, 1e-6);
        double e = v * inv * wv[size_t(i)];
        EXPECT_NEAR(o[size_t(r * D + i)], e, 1e-5 + 1e-4 * std::fabs(e));
      }
    }
  }
}
