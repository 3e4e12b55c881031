// Ops added for the ONNX importer, against plain C++ references at odd sizes:
//   aten.pow.Tensor_Tensor, aten.maximum.default, aten.minimum.default (broadcasting, NaN, negative bases,
//   zero exponents); wgrt.reduce_axis.default in every mode over first / middle / last dims of odd shapes.
// Tolerance: binary |d| <= 1e-6 + 4e-6 |ref|; reductions 1e-5 + 1e-5 |ref| (f32 sequential sums over <= 37).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/ops_a_reference.h"
#include "vision_test_util.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::OneOp;

namespace {

void check_binary(const std::string& op, const Dims& da, const Dims& db, const std::vector<float>& a, const std::vector<float>& b,
                  const std::function<double(double, double)>& f) {
  OneOp o;
  ValueId x = o.input(da, a), y = o.input(db, b);
  o.build(op, {x, y});
  const auto got = o.run();
  const Dims od = o.out_dims();
  ASSERT_EQ(od.size(), 3u);
  std::vector<float> want_f, got_f;
  for (int64_t i = 0; i < od[0]; ++i)
    for (int64_t j = 0; j < od[1]; ++j)
      for (int64_t k = 0; k < od[2]; ++k) {
        auto at = [&](const Dims& d, const std::vector<float>& v) {
          return v[size_t(((d[0] == 1 ? 0 : i) * d[1] + (d[1] == 1 ? 0 : j)) * d[2] + (d[2] == 1 ? 0 : k))];
        };
        const double w = f(at(da, a), at(db, b));
        const float g = got[size_t((i * od[1] + j) * od[2] + k)];
        if (std::isnan(w)) EXPECT_TRUE(std::isnan(g)) << op << " " << at(da, a) << ", " << at(db, b);
        else if (std::isinf(w)) EXPECT_EQ(g, float(w)) << op << " " << at(da, a) << ", " << at(db, b);
        else want_f.push_back(float(w)), got_f.push_back(g);
      }
  expect_close(got_f, want_f, 1e-6, 4e-6, op);
}

}  // namespace

TEST(OnnxOps, PowMaximumMinimumBroadcast) {
  const Dims da = {3, 7, 13}, db = {1, 7, 1};
  auto a = wgrt::test::ref::random_floats(size_t(numel(da)), 5);
  for (size_t i = 0; i < a.size(); ++i) a[i] *= 3.0f;
  a[0] = 0.0f;
  a[1] = -2.0f;
  a[2] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> e = {2.0f, 3.0f, 0.0f, -1.0f, 0.5f, 1.5f, -2.0f};  // integral, zero, negative, fractional
  check_binary("aten.pow.Tensor_Tensor", da, db, a, e, [](double x, double y) { return std::pow(x, y); });
  auto b = wgrt::test::ref::random_floats(7, 6);
  b[3] = std::numeric_limits<float>::quiet_NaN();
  auto nanmax = [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); };
  auto nanmin = [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); };
  check_binary("aten.maximum.default", da, db, a, b, nanmax);
  check_binary("aten.minimum.default", da, db, a, b, nanmin);
}

TEST(OnnxOps, ReduceAxisEveryModeAndDim) {
  const Dims d = {5, 37, 3};
  auto x = wgrt::test::ref::random_floats(size_t(numel(d)), 9);
  const std::vector<std::string> modes = {"sum", "mean", "max", "min", "prod", "sum_square", "sum_abs", "log_sum_exp"};
  for (int64_t dim = 0; dim < 3; ++dim)
    for (const auto& m : modes) {
      OneOp o;
      ValueId xi = o.input(d, x);
      o.build("wgrt.reduce_axis.default", {xi, o.g.int_value(dim - (dim == 2 ? 3 : 0)), o.g.string(m)});
      const auto got = o.run();
      Dims od = d;
      od[size_t(dim)] = 1;
      EXPECT_EQ(o.out_dims(), od);
      std::vector<float> want;
      for (int64_t i = 0; i < od[0]; ++i)
        for (int64_t j = 0; j < od[1]; ++j)
          for (int64_t k = 0; k < od[2]; ++k) {
            std::vector<double> v;
            for (int64_t r = 0; r < d[size_t(dim)]; ++r) {
              int64_t c[3] = {i, j, k};
              c[dim] = r;
              v.push_back(x[size_t((c[0] * d[1] + c[1]) * d[2] + c[2])]);
            }
            double acc = m == "prod" ? 1 : m == "max" ? -INFINITY : m == "min" ? INFINITY : 0, mx = -INFINITY;
            for (double e : v) mx = std::max(mx, e);
            for (double e : v) {
              if (m == "sum" || m == "mean") acc += e;
              else if (m == "max") acc = std::max(acc, e);
              else if (m == "min") acc = std::min(acc, e);
              else if (m == "prod") acc *= e;
              else if (m == "sum_square") acc += e * e;
              else if (m == "sum_abs") acc += std::fabs(e);
              else acc += std::exp(e - mx);
            }
            if (m == "mean") acc /= double(v.size());
            if (m == "log_sum_exp") acc = mx + std::log(acc);
            want.push_back(float(acc));
          }
      expect_close(got, want, 1e-5, 1e-5, m + " dim " + std::to_string(dim));
    }
}

TEST(OnnxOps, ReduceAxisMaxPropagatesNaN) {
  std::vector<float> x = {1, 2, std::numeric_limits<float>::quiet_NaN(), 4, 5, 6, 7};
  for (const char* m : {"max", "min"}) {
    OneOp o;
    ValueId xi = o.input({7}, x);
    o.build("wgrt.reduce_axis.default", {xi, o.g.int_value(0), o.g.string(m)});
    EXPECT_TRUE(std::isnan(o.run()[0])) << m;
  }
}
