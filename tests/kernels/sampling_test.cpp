// wgrt.sample (src/ops/sampling) against the CPU sampler text::Sampler (the reference: its distribution() is
// computed in double and sorted, independently of the GPU's radix select).
// Filter stages: the kept set equals the CPU's exactly (the test logits keep every top-p boundary more than
// 1e-4 away and every kept weight above 2^-30 of the largest), probabilities within |d| <= 1e-6 + 2e-5 p.
// Draws: fixed seeds, chi-square of 16384 draws against the CPU distribution below the 1e-6 quantile of its
// chi-square law (a fixed bound per case, so the test is deterministic: same seeds, same draws).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/sampling/sampling.h"
#include "text/sampler.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int64_t kWindow = 64;

struct GpuRun {
  std::vector<int32_t> tokens;
  std::vector<float> probs;  // [R, V]
  std::vector<int32_t> window_out;
};

// The op on one graph: params of dims pd (max = live), a window input of max dims wmax set at live dims wd.
GpuRun run_op(int64_t R, int64_t V, const std::vector<float>& logits, const Dims& pd, const std::vector<int32_t>& params,
              const Dims& wmax, const Dims& wd, const std::vector<int32_t>& window, bool want_probs) {
  Graph g;
  ValueId x = g.input("logits", DType::F32, {R, V});
  ValueId par = g.input("params", DType::I32, pd);
  ValueId win = g.input("window", DType::I32, wmax);
  ValueId out = g.tensor(DType::I32, {R}, "out");
  ValueId wout = g.tensor(DType::I32, wmax, "window_out");
  ValueId probs = want_probs ? g.tensor(DType::F32, {R, V}, "probs") : g.none();
  g.op("wgrt.sample.default", {x, par, win, out, wout, probs}, "sample");
  g.output(out);
  g.output(wout);
  if (want_probs) g.output(probs);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  exe->set_input(x, {R, V}, std::span<const float>(logits));
  exe->set_input(par, pd, std::span<const int32_t>(params));
  exe->set_input(win, wd, std::span<const int32_t>(window));
  exe->execute();
  GpuRun r;
  r.tokens = exe->read_i32(out);
  r.window_out = exe->read_i32(wout);
  if (want_probs) r.probs = exe->read_f32(probs);
  return r;
}

// One params set for every row, one shared window (the single-sequence form).
GpuRun run_sample(int64_t R, int64_t V, const std::vector<float>& logits, const ops::SampleConfig& c, uint64_t step,
                  const std::vector<int32_t>& window, bool want_probs = true) {
  const auto p = ops::sample_params(c, step);
  return run_op(R, V, logits, {ops::kSampleParams}, std::vector<int32_t>(p.begin(), p.end()), {kWindow},
                {int64_t(window.size())}, window, want_probs);
}

text::SamplerConfig cpu_config(const ops::SampleConfig& c, size_t window) {
  text::SamplerConfig s;
  s.temperature = c.temperature;
  s.top_k = c.top_k;
  s.top_p = c.top_p;
  s.min_p = c.min_p;
  s.repetition_penalty = c.repetition_penalty;
  s.penalty_last_n = int32_t(window);
  s.seed = c.seed;
  return s;
}

// CPU probabilities by id (0 outside the kept set).
std::vector<double> cpu_probs(const std::vector<float>& logits, const ops::SampleConfig& c,
                              const std::vector<int32_t>& history) {
  text::Sampler s(cpu_config(c, history.size()));
  std::vector<double> p(logits.size(), 0.0);
  for (const auto& t : s.distribution(logits, history)) p[size_t(t.id)] = t.p;
  return p;
}

std::vector<float> random_logits(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// The GPU's kept set and probabilities of row `row` equal the CPU's.
void expect_same_distribution(const GpuRun& g, int64_t row, int64_t V, const std::vector<double>& want,
                              const std::string& what) {
  int bad = 0;
  for (int64_t i = 0; i < V; ++i) {
    const double got = g.probs[size_t(row * V + i)], w = want[size_t(i)];
    const bool ok = (got > 0) == (w > 0) && std::fabs(got - w) <= 1e-6 + 2e-5 * w;
    if (!ok && ++bad <= 5) ADD_FAILURE() << what << ": token " << i << " gpu " << got << " cpu " << w;
  }
  EXPECT_EQ(bad, 0) << what;
  // The drawn token is inside the kept set.
  const int32_t t = g.tokens[size_t(row)];
  ASSERT_GE(t, 0) << what;
  ASSERT_LT(t, V) << what;
  EXPECT_GT(want[size_t(t)], 0.0) << what << ": drew token " << t << " outside the CPU's kept set";
}

void check_case(int64_t V, const ops::SampleConfig& c, const std::vector<float>& logits,
                const std::vector<int32_t>& window = {}, uint64_t step = 7) {
  const std::string what = fmt::format("V {} T {} k {} p {} min_p {} pen {} window {}", V, c.temperature, c.top_k,
                                       c.top_p, c.min_p, c.repetition_penalty, window.size());
  expect_same_distribution(run_sample(1, V, logits, c, step, window), 0, V, cpu_probs(logits, c, window), what);
}

// Chi-square statistic of `counts` (N draws) against probabilities p; cells with expected count < 5 are pooled.
double chi_square(const std::map<int32_t, int>& counts, const std::vector<double>& p, int N, int* dof) {
  double chi = 0, pooled_e = 0, pooled_o = 0;
  int cells = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0) {
      EXPECT_EQ(counts.count(int32_t(i)), 0u) << "token " << i << " drawn outside the kept set";
      continue;
    }
    const double e = p[i] * N;
    const auto it = counts.find(int32_t(i));
    const double o = it == counts.end() ? 0 : it->second;
    if (e < 5) {
      pooled_e += e;
      pooled_o += o;
      continue;
    }
    chi += (o - e) * (o - e) / e;
    ++cells;
  }
  if (pooled_e > 0) {
    chi += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
    ++cells;
  }
  *dof = std::max(1, cells - 1);
  return chi;
}

// The 1e-6 upper quantile of chi-square with `dof` degrees of freedom (Wilson-Hilferty, z = 4.753).
double chi_square_bound(int dof) {
  const double k = dof, z = 4.753;
  const double t = 1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k));
  return k * t * t * t;
}

}  // namespace

TEST(GpuSampling, FilterStagesMatchTheCpuSampler) {
  const int64_t V = 1000;
  const auto x = random_logits(size_t(V), 11, 3.0f);
  check_case(V, {.temperature = 1.0f}, x);
  check_case(V, {.temperature = 0.7f, .top_k = 40}, x);
  check_case(V, {.temperature = 0.8f, .top_p = 0.9f}, x);
  check_case(V, {.temperature = 1.3f, .top_k = 100, .top_p = 0.5f}, x);
  check_case(V, {.temperature = 0.9f, .min_p = 0.05f}, x);
  check_case(V, {.temperature = 0.6f, .top_k = 200, .top_p = 0.95f, .min_p = 0.02f}, x);
}

TEST(GpuSampling, RepetitionPenaltyOverTheWindow) {
  const int64_t V = 777;
  auto x = random_logits(size_t(V), 5, 2.0f);
  // Make penalized ids matter: both signs, duplicates in the window, empty (-1) slots are not allowed by the
  // CPU history, so the window here is full.
  std::vector<int32_t> w = {3, 17, 3, 500, 776, 0, 17, 250};
  x[3] = 6.0f;
  x[17] = -1.0f;
  x[500] = 5.5f;
  check_case(V, {.temperature = 0.8f, .repetition_penalty = 1.3f}, x, w);
  check_case(V, {.temperature = 0.8f, .top_k = 20, .repetition_penalty = 0.7f}, x, w);
  check_case(V, {.temperature = 1.0f, .top_p = 0.8f, .min_p = 0.01f, .repetition_penalty = 1.8f}, x, w);
  // -1 slots are ignored: the same as leaving them out.
  const ops::SampleConfig c{.temperature = 0.8f, .repetition_penalty = 1.3f};
  std::vector<int32_t> padded = {-1, -1, 3, 17, 500};
  const auto g = run_sample(1, V, x, c, 1, padded);
  expect_same_distribution(g, 0, V, cpu_probs(x, c, {3, 17, 500}), "padded window");
  // window_out: shifted by one, the drawn token appended.
  EXPECT_EQ(g.window_out, (std::vector<int32_t>{-1, 3, 17, 500, g.tokens[0]}));
}

TEST(GpuSampling, Edges) {
  const int64_t V = 300;
  const auto x = random_logits(size_t(V), 3, 2.0f);
  check_case(V, {.temperature = 1.0f, .top_k = 1}, x);
  check_case(V, {.temperature = 1.0f, .top_k = int32_t(V)}, x);       // k = V: off
  check_case(V, {.temperature = 1.0f, .top_k = int32_t(V + 5)}, x);   // k > V: off
  check_case(V, {.temperature = 1.0f, .top_p = 1.0f}, x);
  check_case(V, {.temperature = 1.0f, .top_p = 1e-6f}, x);            // only the largest
  check_case(V, {.temperature = 1.0f, .min_p = 0.0f}, x);
  check_case(V, {.temperature = 1.0f, .min_p = 1.0f}, x);             // only the largest
  check_case(V, {.temperature = 1e-6f}, x);                           // tiny temperature: the argmax
  check_case(V, {.temperature = 1e-30f, .top_p = 0.9f}, x);
  check_case(V, {.temperature = 50.0f, .top_p = 0.99f}, x);           // flat: many kept
  // All-equal logits: ties go to the lower id in top-k and top-p.
  const std::vector<float> eq(size_t(V), 0.25f);
  check_case(V, {.temperature = 1.0f}, eq);
  check_case(V, {.temperature = 1.0f, .top_k = 7}, eq);
  check_case(V, {.temperature = 0.5f, .top_p = 0.5f}, eq);
  check_case(V, {.temperature = 1.0f, .min_p = 1.0f}, eq);
  // -inf logits are never drawn; top-k larger than the finite count keeps them at probability 0.
  std::vector<float> m = x;
  for (int64_t i = 0; i < V; i += 3) m[size_t(i)] = -kInf;
  check_case(V, {.temperature = 1.0f}, m);
  check_case(V, {.temperature = 1.0f, .top_k = 250}, m);
  check_case(V, {.temperature = 0.7f, .top_p = 0.9f, .min_p = 0.1f}, m);
  std::vector<float> one(size_t(V), -kInf);
  one[123] = -3.0f;
  check_case(V, {.temperature = 1.0f, .top_p = 0.5f}, one);
  // -0 and +0 are equal logits (the lower id first).
  std::vector<float> zeros(size_t(V), -10.0f);
  zeros[10] = -0.0f;
  zeros[4] = 0.0f;
  check_case(V, {.temperature = 1.0f, .top_k = 1}, zeros);
}

TEST(GpuSampling, BadLogitsGiveMinusOne) {
  const int64_t V = 5000;
  auto x = random_logits(size_t(V), 9, 1.0f);
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), kInf}) {
    auto y = x;
    y[4321] = bad;
    EXPECT_EQ(run_sample(1, V, y, {.temperature = 1.0f, .top_p = 0.9f}, 0, {}).tokens[0], -1) << bad;
  }
  const std::vector<float> all(size_t(V), -kInf);
  EXPECT_EQ(run_sample(1, V, all, {.temperature = 1.0f}, 0, {}).tokens[0], -1);
}

TEST(GpuSampling, VocabSizesAcrossChunkAndDigitBoundaries) {
  for (int64_t V : {1, 2, 255, 256, 257, 4095, 4097, 65537, 128256, 262145}) {
    const auto x = random_logits(size_t(V), uint32_t(V), 2.5f);
    check_case(V, {.temperature = 0.8f, .top_k = int32_t(std::min<int64_t>(V, 50)), .top_p = 0.95f}, x);
    check_case(V, {.temperature = 0.8f, .top_p = 0.95f}, x);
    check_case(V, {.temperature = 1.0f, .min_p = 0.1f}, x);
  }
}

TEST(GpuSampling, RowsAreIndependent) {
  const int64_t R = 3, V = 513;
  std::vector<float> x;
  for (int64_t r = 0; r < R; ++r) {
    auto row = random_logits(size_t(V), uint32_t(100 + r), float(1 + r));
    x.insert(x.end(), row.begin(), row.end());
  }
  const ops::SampleConfig c{.temperature = 0.9f, .top_k = 64, .top_p = 0.9f};
  const auto g = run_sample(R, V, x, c, 0, {});
  for (int64_t r = 0; r < R; ++r) {
    std::vector<float> row(x.begin() + r * V, x.begin() + (r + 1) * V);
    expect_same_distribution(g, r, V, cpu_probs(row, c, {}), fmt::format("row {}", r));
  }
}

TEST(GpuSampling, DrawsFollowTheCpuDistribution) {
  const int N = 16384;
  struct Case {
    int64_t V;
    ops::SampleConfig c;
    uint32_t seed;
  };
  const std::vector<Case> cases = {
      {37, {.temperature = 1.0f, .seed = 1}, 21},
      {37, {.temperature = 0.8f, .top_p = 0.9f, .seed = 2}, 22},
      {300, {.temperature = 0.7f, .top_k = 12, .seed = 3}, 23},
      {300, {.temperature = 1.2f, .top_k = 40, .top_p = 0.8f, .min_p = 0.05f, .seed = 0xfeedbeef12345678ull}, 24},
      {8, {.temperature = 1.0f, .seed = 5}, 0},  // all-equal logits: uniform
  };
  for (const auto& k : cases) {
    std::vector<float> row = k.seed ? random_logits(size_t(k.V), k.seed, 1.5f) : std::vector<float>(size_t(k.V), 1.0f);
    std::vector<float> x;
    for (int i = 0; i < N; ++i) x.insert(x.end(), row.begin(), row.end());
    const auto g = run_sample(N, k.V, x, k.c, 1000, {}, false);
    std::map<int32_t, int> counts;
    for (int32_t t : g.tokens) counts[t]++;
    int dof = 0;
    const double chi = chi_square(counts, cpu_probs(row, k.c, {}), N, &dof);
    const double bound = chi_square_bound(dof);
    EXPECT_LT(chi, bound) << "V " << k.V << " seed " << k.c.seed << " dof " << dof;
    fmt::print("V {} seed {}: GPU chi-square {:.1f} (dof {}, bound {:.1f})", k.V, k.c.seed, chi, dof, bound);
    // The CPU sampler's own draws pass the same bound (the statistic is not trivially small or large).
    text::Sampler cpu(cpu_config(k.c, 0));
    std::map<int32_t, int> cpu_counts;
    for (int i = 0; i < N; ++i) cpu_counts[cpu.sample(row, {})]++;
    int cdof = 0;
    const double cchi = chi_square(cpu_counts, cpu_probs(row, k.c, {}), N, &cdof);
    EXPECT_LT(cchi, chi_square_bound(cdof));
    fmt::print(", CPU sampler {:.1f}\n", cchi);
  }
}

TEST(GpuSampling, SameSeedSameTokensOtherSeedOthers) {
  const int64_t R = 64, V = 2000;
  const auto row = random_logits(size_t(V), 77, 1.0f);
  std::vector<float> x;
  for (int64_t r = 0; r < R; ++r) x.insert(x.end(), row.begin(), row.end());
  const ops::SampleConfig c{.temperature = 1.0f, .top_p = 0.95f, .seed = 42};
  const auto a = run_sample(R, V, x, c, 5, {}, false), b = run_sample(R, V, x, c, 5, {}, false);
  EXPECT_EQ(a.tokens, b.tokens);
  ops::SampleConfig other = c;
  other.seed = 43;
  EXPECT_NE(run_sample(R, V, x, other, 5, {}, false).tokens, a.tokens);
  // The step keys the counter: row r at step s draws as row r - 1 at step s + 1.
  const auto shifted = run_sample(R, V, x, c, 6, {}, false);
  EXPECT_TRUE(std::equal(a.tokens.begin() + 1, a.tokens.end(), shifted.tokens.begin()));
}

TEST(GpuSampling, RejectsBadParameters) {
  const std::vector<float> x(10, 0.0f);
  EXPECT_THROW(run_sample(1, 10, x, {.temperature = 0.0f}, 0, {}), InvalidArgument);
  EXPECT_THROW(run_sample(1, 10, x, {.temperature = 1.0f, .top_p = 0.0f}, 0, {}), InvalidArgument);
  EXPECT_THROW(run_sample(1, 10, x, {.temperature = 1.0f, .min_p = 1.5f}, 0, {}), InvalidArgument);
  EXPECT_THROW(run_sample(1, 10, x, {.temperature = 1.0f, .repetition_penalty = 0.0f}, 0, {}), InvalidArgument);
}

// Per-row parameters (params [R, 16], window [R, W]: the serving batch): each row follows its own config,
// penalty window and counter; an off row gives -1; a row draws the same token as when it runs alone.
namespace {

struct RowCase {
  bool on;
  ops::SampleConfig c;
  uint64_t step;
  std::vector<int32_t> window;  // at most kWindow, oldest first
};

GpuRun run_rows(int64_t V, const std::vector<float>& logits, const std::vector<RowCase>& rows, bool want_probs) {
  const int64_t R = int64_t(rows.size());
  std::vector<int32_t> p, w;
  for (const RowCase& rc : rows) {
    std::array<int32_t, ops::kSampleParams> q{};
    if (rc.on) q = ops::sample_params(rc.c, rc.step);
    p.insert(p.end(), q.begin(), q.end());
    std::vector<int32_t> row(size_t(kWindow), -1);
    std::copy(rc.window.begin(), rc.window.end(), row.end() - long(rc.window.size()));
    w.insert(w.end(), row.begin(), row.end());
  }
  return run_op(R, V, logits, {R, ops::kSampleParams}, p, {R, kWindow}, {R, kWindow}, w, want_probs);
}

}  // namespace

TEST(GpuSampling, PerRowParametersWindowsAndCounters) {
  const int64_t V = 4099;  // two chunks
  const std::vector<int32_t> w1 = {3, 17, 3, 500}, w3 = {4000, 1, 2};
  const std::vector<RowCase> rows = {
      {true, {.temperature = 0.8f, .top_k = 40, .seed = 11}, 5, {}},
      {true, {.temperature = 1.1f, .top_p = 0.9f, .repetition_penalty = 1.4f, .seed = 12}, 900, w1},
      {false, {}, 0, {}},
      {true, {.temperature = 0.6f, .top_k = 200, .top_p = 0.95f, .min_p = 0.02f, .repetition_penalty = 0.8f, .seed = 13}, 1,
       w3},
      {true, {.temperature = 1.0f, .top_k = 1, .seed = 14}, 77, {}},
      {true, {.temperature = 1.5f, .seed = 15}, 3, {}},
  };
  const int64_t R = int64_t(rows.size());
  std::vector<float> x;
  for (int64_t r = 0; r < R; ++r) {
    auto row = random_logits(size_t(V), uint32_t(300 + r), 2.0f);
    row[3] = 5.0f;
    row[500] = 4.5f;
    row[4000] = 4.0f;
    x.insert(x.end(), row.begin(), row.end());
  }
  const auto g = run_rows(V, x, rows, true);
  for (int64_t r = 0; r < R; ++r) {
    const RowCase& rc = rows[size_t(r)];
    std::vector<float> row(x.begin() + r * V, x.begin() + (r + 1) * V);
    if (!rc.on) {
      EXPECT_EQ(g.tokens[size_t(r)], -1) << "off row";
      continue;
    }
    expect_same_distribution(g, r, V, cpu_probs(row, rc.c, rc.window), fmt::format("row {}", r));
    // Alone (params [16], window [W], one row) at the same step and seed: the same token.
    std::vector<int32_t> win(size_t(kWindow), -1);
    std::copy(rc.window.begin(), rc.window.end(), win.end() - long(rc.window.size()));
    EXPECT_EQ(run_sample(1, V, row, rc.c, rc.step, win, false).tokens[0], g.tokens[size_t(r)]) << "row " << r;
    // Each row's window_out: its own window shifted by one with its token appended.
    std::vector<int32_t> want(win.begin() + 1, win.end());
    want.push_back(g.tokens[size_t(r)]);
    EXPECT_EQ(std::vector<int32_t>(g.window_out.begin() + r * kWindow, g.window_out.begin() + (r + 1) * kWindow), want)
        << "row " << r;
  }
  // top_k 1 is the argmax.
  const auto best = std::max_element(x.begin() + 4 * V, x.begin() + 5 * V) - (x.begin() + 4 * V);
  EXPECT_EQ(g.tokens[4], int32_t(best));
}
