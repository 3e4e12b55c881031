// Every elementwise unary op against a plain C++ double reference of PyTorch's definition, on an odd-sized
// input (1031 elements: not a multiple of the 256-wide workgroup) spanning negative, zero, small and large
// values (|x| up to 40, where sigmoid/tanh saturate), plus +-inf for the ops defined there.
// Tolerance |d| <= 1e-6 + 2e-6 |ref| (f32 rounding; erf's approximation error is < 1.5e-7).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops_a_test_util.h"
#include "vision_test_util.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::OneOp;

namespace {

std::vector<float> inputs(bool with_inf) {
  std::vector<float> x;
  for (int i = 0; i < 1031; ++i) x.push_back(float((i - 515) * (i % 3 ? 0.0125 : 0.08)));  // [-41.2, 41.2]
  x[7] = 0.0f;
  x[8] = -0.0f;
  x[9] = -3.0f;  // hardswish's knees
  x[10] = 3.0f;
  if (with_inf) {
    x[11] = std::numeric_limits<float>::infinity();
    x[12] = -std::numeric_limits<float>::infinity();
  }
  return x;
}

void check_unary(const std::string& op, std::vector<ValueId (*)(Graph&)> extra, const std::function<double(double)>& f,
                 bool with_inf = true, double rel = 2e-6, double abs = 1e-6) {
  const std::vector<float> x = inputs(with_inf);
  OneOp o;
  std::vector<ValueId> args = {o.input({int64_t(x.size())}, x)};
  for (auto make : extra) args.push_back(make(o.g));
  o.build(op, args);
  const std::vector<float> got = o.run();
  std::vector<float> want;
  for (float v : x) want.push_back(float(f(double(v))));
  // Infinite references compare exactly (d = 0 only when got is the same inf).
  std::vector<float> got_f, want_f;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i])) EXPECT_EQ(got[i], want[i]) << op << " x " << x[i];
    else got_f.push_back(got[i]), want_f.push_back(want[i]);
  }
  expect_close(got_f, want_f, abs, rel, op);
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

}  // namespace

TEST(Elementwise, SiluSigmoidReluNeg) {
  check_unary("aten.silu.default", {}, [](double v) { return v * sigmoid(v); }, /*with_inf=*/false);
  check_unary("aten.sigmoid.default", {}, sigmoid);
  check_unary("aten.relu.default", {}, [](double v) { return std::max(v, 0.0); });
  check_unary("aten.neg.default", {}, [](double v) { return -v; });
  check_unary("aten.abs.default", {}, [](double v) { return std::fabs(v); });  // added by the ARCHITECTURE recipe
}

TEST(Elementwise, Tanh) { check_unary("aten.tanh.default", {}, [](double v) { return std::tanh(v); }); }

TEST(Elementwise, Hardswish) {
  check_unary("aten.hardswish.default", {},
              [](double v) { return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0; }, /*with_inf=*/false);
}

TEST(Elementwise, LeakyRelu) {
  check_unary("aten.leaky_relu.default", {[](Graph& g) { return g.real(0.125); }},
              [](double v) { return v >= 0 ? v : 0.125 * v; });
}

TEST(Elementwise, ClampBothBoundsOneBoundAndNone) {
  check_unary("aten.clamp.default", {[](Graph& g) { return g.real(-2.5); }, [](Graph& g) { return g.real(7.0); }},
              [](double v) { return std::min(std::max(v, -2.5), 7.0); });
  check_unary("aten.clamp.default", {[](Graph& g) { return g.none(); }, [](Graph& g) { return g.real(1.0); }},
              [](double v) { return std::min(v, 1.0); });
  check_unary("aten.clamp.default", {[](Graph& g) { return g.real(0.5); }, [](Graph& g) { return g.none(); }},
              [](double v) { return std::max(v, 0.5); });
}

TEST(Elementwise, GeluBothForms) {
  check_unary("aten.gelu.default", {[](Graph& g) { return g.string("none"); }},
              [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); },
              /*with_inf=*/false);
  check_unary("aten.gelu.default", {[](Graph& g) { return g.string("tanh"); }},
              [](double v) {
                return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
              },
              /*with_inf=*/false);
}

namespace {

// As check_unary, on the given inputs (NaN references must give NaN), tolerance atol + rtol |ref|.
void check_unary_on(const std::string& op, std::vector<ValueId (*)(Graph&)> extra, const std::function<double(double)>& f,
                    const std::vector<float>& x, double atol, double rtol) {
  OneOp o;
  std::vector<ValueId> args = {o.input({int64_t(x.size())}, x)};
  for (auto make : extra) args.push_back(make(o.g));
  o.build(op, args);
  const std::vector<float> got = o.run();
  std::vector<float> got_f, want_f;
  for (size_t i = 0; i < got.size(); ++i) {
    const float want = float(f(double(x[i])));
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(got[i])) << op << " x " << x[i] << " got " << got[i];
    else if (std::isinf(want)) EXPECT_EQ(got[i], want) << op << " x " << x[i];
    else got_f.push_back(got[i]), want_f.push_back(want);
  }
  expect_close(got_f, want_f, atol, rtol, op);
}

}  // namespace

TEST(Elementwise, ExpLogSqrtReciprocal) {
  std::vector<float> x = inputs(false);
  for (float& v : x) v = std::clamp(v, -40.0f, 40.0f);
  check_unary_on("aten.exp.default", {}, [](double v) { return std::exp(v); }, x, 1e-6, 4e-6);
  std::vector<float> pos;
  for (int i = 0; i < 1031; ++i) pos.push_back(float(i) * 0.37f + (i % 5 ? 1e-3f : 0.0f) - (i == 3 ? 5.0f : 0.0f));
  pos[0] = 0.0f;
  check_unary_on("aten.log.default", {}, [](double v) { return std::log(v); }, pos, 1e-6, 4e-6);
  check_unary_on("aten.sqrt.default", {}, [](double v) { return std::sqrt(v); }, pos, 1e-6, 2e-6);
  check_unary_on("aten.reciprocal.default", {}, [](double v) { return 1.0 / v; }, x, 1e-6, 2e-6);
}

TEST(Elementwise, ErfRoundingSignTrig) {
  const std::vector<float> x = inputs(true);
  check_unary("aten.erf.default", {}, [](double v) { return std::erf(v); });
  check_unary("aten.floor.default", {}, [](double v) { return std::floor(v); });
  check_unary("aten.ceil.default", {}, [](double v) { return std::ceil(v); });
  std::vector<float> halves;
  for (int i = -515; i <= 515; ++i) halves.push_back(float(i) * 0.25f);  // ties (x.5) round to even
  check_unary_on("aten.round.default", {}, [](double v) { return std::nearbyint(v); }, halves, 0, 0);
  check_unary("aten.sign.default", {}, [](double v) { return double((v > 0) - (v < 0)); });
  std::vector<float> ang;
  for (int i = 0; i < 1031; ++i) ang.push_back(float((i - 515) * 0.0061));  // [-pi, pi]
  check_unary_on("aten.sin.default", {}, [](double v) { return std::sin(v); }, ang, 2e-6, 2e-6);
  check_unary_on("aten.cos.default", {}, [](double v) { return std::cos(v); }, ang, 2e-6, 2e-6);
}

TEST(Elementwise, OnnxActivations) {
  check_unary("wgrt.hard_sigmoid.default", {[](Graph& g) { return g.real(0.2); }, [](Graph& g) { return g.real(0.5); }},
              [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); });
  check_unary("wgrt.selu.default", {[](Graph& g) { return g.real(1.67326); }, [](Graph& g) { return g.real(1.0507); }},
              [](double v) { return 1.0507 * (v > 0 ? v : 1.67326 * (std::exp(v) - 1)); });
  check_unary("aten.elu.default", {[](Graph& g) { return g.real(0.7); }, [](Graph& g) { return g.real(1.0); }, [](Graph& g) { return g.real(1.0); }},
              [](double v) { return v > 0 ? v : 0.7 * (std::exp(v) - 1); });
  check_unary("aten.softplus.default", {[](Graph& g) { return g.real(1.0); }, [](Graph& g) { return g.real(20.0); }},
              [](double v) { return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); });
  check_unary("wgrt.softsign.default", {}, [](double v) { return std::isinf(v) ? (v > 0 ? 1.0 : -1.0) : v / (1 + std::fabs(v)); }, false);
}

// wgrt's scalar ops for gemma: x * s (embedding scale) and c * tanh(x / c) (logit soft-capping), c below and
// above the input range; a non-positive cap is an error. Soft-capping inherits WGSL tanh's accuracy over its
// whole curved range (lavapipe: ~4e-6 relative; near 0 about 6e-8 absolute in tanh, times the cap), so it is
// held to 1e-7 * cap + 1e-6 + 1e-5 |ref|.
TEST(Elementwise, ScaleAndSoftcap) {
  check_unary("wgrt.scale.default", {[](Graph& g) { return g.real(11.3137); }}, [](double v) { return v * double(11.3137f); });
  check_unary("wgrt.softcap.default", {[](Graph& g) { return g.real(5.0); }},
              [](double v) { return 5.0 * std::tanh(v / 5.0); }, /*with_inf=*/false, 1e-5, 1.5e-6);
  check_unary("wgrt.softcap.default", {[](Graph& g) { return g.real(50.0); }},
              [](double v) { return 50.0 * std::tanh(v / 50.0); }, /*with_inf=*/false, 1e-5, 6e-6);
  OneOp o;
  ValueId x = o.input({4}, std::vector<float>{1, 2, 3, 4});
  EXPECT_THROW(o.build("wgrt.softcap.default", {x, o.g.real(0.0)}), InvalidArgument);
}
